"""Program sources that deploy vLLM, never passed over unseen (progsrc13; Terraform's ``*.tf`` before them, corpus13).

shardwise reads what a tool renders, not the program that renders it: a Pulumi program (``index.ts``,
``__main__.py``, ``main.go`` beside a ``Pulumi.yaml``; a Pulumi YAML program), an AWS CDK or cdk8s app, Jsonnet,
CUE and KCL sources, and a Dockerfile (a container image, not a deployment). A searched folder takes them so that
each is skipped with a reason that says what to lint instead and, where a line outside a comment starts a vLLM server
(:func:`.shell.serves_vllm`: the image, ``vllm serve``, the API server module, a vLLM-only flag), names that line.

At no cost to a YAML-only lint: the suffixes of general-purpose languages (``.ts``, ``.js``, ``.py``, ``.go``) are
taken only beside a ``Pulumi.yaml`` (Pulumi's ``main`` is the project folder by default) or under a folder holding a
``cdk.json`` / ``cdk8s.yaml`` (``cdk init`` puts the stack in ``lib/`` or a package folder); only the first
:data:`HEAD_BYTES` of each is read, when it is loaded. A file of these kinds named on the command line gets the same
reason, never a YAML parse error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

#: How much of a program source is read for a vLLM mention (a program that starts vLLM names it near the top: the
#: corpus's Pulumi and Terraform files do within their first 12 KB).
HEAD_BYTES = 64 * 1024

#: Project files whose folder's program sources are taken while searching, and what the program is.
PULUMI_PROJECT = ("Pulumi.yaml", "Pulumi.yml")
CDK_PROJECT = ("cdk.json", "cdk8s.yaml")
#: General-purpose languages: taken only in a project folder (above).
SOURCE_SUFFIXES = {".ts": "TypeScript", ".js": "JavaScript", ".py": "Python", ".go": "Go"}
#: Configuration languages that render Kubernetes objects: always taken.
OWN_SUFFIXES = {".jsonnet": "Jsonnet", ".libsonnet": "Jsonnet library", ".cue": "CUE", ".k": "KCL"}
#: A Jupyter notebook: always taken. Its cells run shell commands (``%%bash``, ``!kubectl``) that may start vLLM or
#: apply a manifest from a here-document; a notebook is JSON whose every source line nbformat writes on a line of its
#: own, so a line of the file names where (corpus37: mjhermanson-nv/dynamo-grove-brev's labs apply their Dynamo
#: manifests from notebook cells; .ipynb files were neither read nor counted, passed over unseen).
NOTEBOOK_SUFFIX = ".ipynb"
_ALL_SUFFIXES = (*SOURCE_SUFFIXES, *OWN_SUFFIXES, NOTEBOOK_SUFFIX)

PULUMI_INSTEAD = "lint the program's `pulumi preview --json` output or its `pulumi stack export`, which shardwise reads"
CDK8S_INSTEAD = "lint what `cdk8s synth` writes (the manifests in dist/)"
CDK_INSTEAD = ("`cdk synth` writes a CloudFormation template, which shardwise does not read: lint the Kubernetes "
               "manifests the app applies, written as YAML")
SOURCE_INSTEAD = ("lint what the program deploys, rendered: a Pulumi program's `pulumi preview --json` output or "
                  "`pulumi stack export` (which shardwise reads), `cdk8s synth` output, or the manifests as YAML")
_OWN_INSTEAD = {
    "Jsonnet": "lint its output (`jsonnet -y FILE`)",
    "Jsonnet library": "lint the output of the Jsonnet file that imports it (`jsonnet -y FILE`)",
    "CUE": "lint what `cue export --out yaml` prints",
    "KCL": "lint what `kcl run` prints",
}
NOTEBOOK_INSTEAD = ("save the manifests its cells apply as files and lint them (a cell's `kubectl apply -f FILE` names "
                    "one; a here-document fed to kubectl apply is one)")
DOCKER_INSTEAD = ("it builds a container image, not a deployment, so that server is not linted here; lint the "
                  "Kubernetes manifest that runs the image (its flags, GPUs and probes are there)")
PULUMI_PROJECT_FILE = "Pulumi project file"

_DOCKERFILE = re.compile(r"^(?:Dockerfile|Containerfile)(?:\..+)?$|.\.(?:Dockerfile|dockerfile|Containerfile)$")
_YAML_RUNTIME = re.compile(r"^runtime:[ \t]*(?:yaml\b|\n(?:[ \t]+.*\n)*?[ \t]+name:[ \t]*yaml\b)", re.M)
_RESOURCES = re.compile(r"^resources:", re.M)
#: ``vllm serve`` in exec form, as a Dockerfile's CMD or a program's container command writes it (``["vllm", "serve"``).
_EXEC_SERVE = re.compile(r"""["']vllm["'][ \t]*,[ \t]*["']serve["']""")


def serves_vllm(text: str) -> tuple[int, str] | None:
    """(line, word) of the first line outside a comment that starts a vLLM server: what a script says
    (:func:`.shell.serves_vllm`) or ``vllm serve`` in exec form (:data:`_EXEC_SERVE`)."""
    from .shell import serves_vllm as script_serves

    found = script_serves(text)
    limit = text if found is None else "\n".join(text.splitlines()[:found[0] - 1])
    for n, line in enumerate(limit.splitlines(), 1):
        if line.lstrip().startswith(("#", "//")):
            continue
        m = _EXEC_SERVE.search(line)
        if m is not None:
            return n, m.group(0)
    return found


#: Why a Docker Compose file is skipped (:func:`compose_skip`).
COMPOSE_FILE = "Docker Compose file"


def compose_skip(text: str) -> str:
    """Why a Docker Compose file is skipped: a Compose file, or one whose service starts vLLM (the image,
    ``vllm serve`` in shell or exec form, the API server module, a vLLM-only flag: :func:`serves_vllm`), whose line is
    named: shardwise lints Kubernetes objects, and that server is none."""
    found = serves_vllm(text)
    if found is None:
        return COMPOSE_FILE
    line, word = found
    return (f"Docker Compose file that starts vLLM (`{word}` at line {line}): shardwise reads no Compose service, so "
            "that server is not linted; a Kubernetes manifest of it can be (written by hand, or by `kompose convert`)")


def is_dockerfile(name: str) -> bool:
    return ("ockerfile" in name or "ontainerfile" in name) and _DOCKERFILE.search(os.path.basename(name)) is not None


def is_program(path: str) -> bool:
    """Whether ``path`` is read as a program source (its name alone; :func:`program_skip` says what it is)."""
    return path.endswith(_ALL_SUFFIXES) or is_dockerfile(path)


def taken(name: str, project: Callable[[], bool]) -> bool:
    """Whether a searched folder takes the file ``name``: a configuration language or a Dockerfile always, a
    general-purpose source only in a project folder, beside a Pulumi.yaml or under a cdk.json / cdk8s.yaml
    (``project()``, asked only then)."""
    if name.endswith((*OWN_SUFFIXES, NOTEBOOK_SUFFIX)) or is_dockerfile(name):
        return True
    return name.endswith(tuple(SOURCE_SUFFIXES)) and project()


def _project(path: str) -> str | None:
    """The kind of project ``path`` belongs to: Pulumi beside a Pulumi.yaml, cdk8s or AWS CDK in or under the folder
    of a cdk8s.yaml / cdk.json."""
    folder = os.path.dirname(os.path.abspath(path))
    if any(os.path.isfile(os.path.join(folder, f)) for f in PULUMI_PROJECT):
        return "Pulumi"
    while True:
        if os.path.isfile(os.path.join(folder, "cdk8s.yaml")):
            return "cdk8s"
        if os.path.isfile(os.path.join(folder, "cdk.json")):
            return "AWS CDK"
        up = os.path.dirname(folder)
        if up == folder:
            return None
        folder = up


def _what(path: str) -> tuple[str, str]:
    """What a program source is, and what to lint instead."""
    if is_dockerfile(path):
        return "Dockerfile", DOCKER_INSTEAD
    if path.endswith(NOTEBOOK_SUFFIX):
        return "Jupyter notebook", NOTEBOOK_INSTEAD
    suffix = os.path.splitext(path)[1]
    own = OWN_SUFFIXES.get(suffix)
    if own is not None:
        return f"{own} source", _OWN_INSTEAD[own]
    language = SOURCE_SUFFIXES[suffix]
    project = _project(path)
    if project == "Pulumi":
        return f"Pulumi program in {language}", PULUMI_INSTEAD
    if project == "cdk8s":
        return f"cdk8s app in {language}", CDK8S_INSTEAD
    if project == "AWS CDK":
        return f"AWS CDK app in {language}", CDK_INSTEAD
    return f"{language} source", SOURCE_INSTEAD


#: A Python program's import of shardwise's own Pulumi components (docs/pulumi.md), at the start of a line.
_USES_COMPONENTS = re.compile(r"^[ \t]*(?:from[ \t]+shardwise\.components\b|import[ \t]+shardwise\.components\b"
                              r"|from[ \t]+shardwise[ \t]+import[ \t][^\n#]*\bcomponents\b)", re.MULTILINE)


def _components_line(text: str) -> int | None:
    m = _USES_COMPONENTS.search(text)
    return None if m is None else text.count("\n", 0, m.start()) + 1


def program_skip(path: str, text: str) -> str:
    """Why the program source ``path`` (its first :data:`HEAD_BYTES` in ``text``) is skipped: what it is, and where a
    line outside a comment starts a vLLM server, that line and what to lint instead."""
    what, instead = _what(path)
    uses = _components_line(text) if what == "Pulumi program in Python" else None
    if uses is not None:
        # newuser12: a program of the components read "shardwise reads no program source, so that server is not
        # linted", as if nothing judged it; its components run the rules on their arguments when it runs
        return (f"{what} that uses shardwise's components (`shardwise.components` at line {uses}): they check their "
                "arguments with these rules when the program runs, so `pulumi preview` fails on a blocking finding "
                "(an ArgumentsError naming the argument); shardwise reads no program source: lint its `pulumi "
                "preview --json` output with the rest to judge what it deploys beside the other inputs")
    found = serves_vllm(text)
    if found is None:
        if what == "Dockerfile":
            return "Dockerfile (a container image, not a deployment)"
        if what == "Jupyter notebook":
            return "Jupyter notebook (not read)"
        if what.startswith("Pulumi program"):  # newuser10: what it deploys is read from the preview, always
            return f"{what} (program source is not read: lint its `pulumi preview --json` output)"
        return f"{what} (program source is not read)"
    line, word = found
    if what == "Dockerfile":
        return f"Dockerfile that starts vLLM (`{word}` at line {line}): {instead}"
    if what == "Jupyter notebook":  # its prose cells and outputs are lines of the file too: it mentions, no more
        return (f"Jupyter notebook that mentions vLLM (`{word}` at line {line}): shardwise reads no notebook, so a "
                f"server its cells start, or a manifest they apply, is not linted; {instead}")
    return (f"{what} that starts vLLM (`{word}` at line {line}): shardwise reads no program source, so that server is "
            f"not linted; {instead}")


def pulumi_project_skip(text: str) -> str:
    """Why a Pulumi.yaml is skipped: a project file, or a Pulumi YAML program (``runtime: yaml`` with
    ``resources:``) that starts vLLM, whose line is named."""
    if _YAML_RUNTIME.search(text) is None or _RESOURCES.search(text) is None:
        return PULUMI_PROJECT_FILE
    found = serves_vllm(text)
    if found is None:
        return PULUMI_PROJECT_FILE
    line, word = found
    return (f"Pulumi YAML program that starts vLLM (`{word}` at line {line}): shardwise does not run the program, so "
            f"that server is not linted; {PULUMI_INSTEAD}")

"""Which files a lint run reads: directories searched, paths excluded, files that are not inputs.

- Directories are searched recursively for ``*.yaml``, ``*.yml``, ``*.json``, shell scripts (``*.sh``,
  ``*.bash``, a file without a suffix whose first line is a sh/bash shebang; :mod:`.shell`) and Terraform files
  (``*.tf``: not read as HCL, skipped with a reason that says when one starts vLLM), and program sources
  (:mod:`.programs`: Jsonnet, CUE, KCL, Dockerfiles, Jupyter notebooks; TypeScript, JavaScript, Python and Go only
  beside a ``Pulumi.yaml`` or under a ``cdk.json`` / ``cdk8s.yaml``; skipped with what to lint instead) in sorted order;
  hidden directories (``.git``, ``.github``, ...) and ``node_modules``, ``venv``, ``__pycache__``
  and ``.terraform`` are not searched.
- :class:`Excludes` holds gitignore-like patterns from ``--exclude``, the config file's ``exclude``
  and a ``.shardwiseignore`` file in the current directory. A path the patterns exclude is not read
  (a directory: nothing under it), also when it is named on the command line; each is counted.
- A manifest template met while searching (``*.yaml-template``, ``*.yaml.tpl``, ``*.yaml.tmpl``, ``*.yaml.tftpl``,
  ``*.yaml.j2``, ``*.yaml.jinja2``) is
  not YAML until a tool fills its placeholders: it is skipped with that reason (named on the command line, it is read).
- A file whose name says what it is, and that is never a Kubernetes manifest, a Pulumi preview or
  state file or a shardwise stack (``Chart.yaml``, ``kustomization.yaml``, ``Pulumi.yaml``,
  ``package.json``, CI workflows, a Helm chart's ``templates/`` and ``files/`` ...), is skipped without being read
  and counted with the reason. Files known only by their content are sorted out by
  :mod:`.kinds` after parsing.
- A path that does not exist or a directory that cannot be listed is an input error; the other
  paths are still read. A symbolic link met while searching a directory is read only when it leads to a
  file inside that directory (else an input error: name the file itself to read it); a file that is not
  a regular file (a FIFO, a device) is an input error when it is read (:mod:`..model.files`).
- A Helm chart or Kustomize directory named on the command line (the directory, other than the
  current one, or its ``Chart.yaml`` / ``kustomization.yaml``) is rendered (:mod:`.charts`), not
  searched. Charts and kustomizations met while searching a tree, and ``.``, are searched: their files
  are skipped by name as above, so a run over a repository reads the same files whatever it holds.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from ..model.errors import InputError
from ..model.files import inside, link_target, read_file_bytes
from .renderkind import to_render
from .shellname import is_shell_name, shebang_file

INPUT_SUFFIXES = (".yaml", ".yml", ".json")
#: Terraform configuration: HCL is not read, but a searched folder's ``*.tf`` files are taken so that one that starts
#: a vLLM server (a ``kubernetes_deployment`` of the vLLM image) is skipped with that reason, never passed over unseen.
TERRAFORM_SUFFIX = ".tf"
IGNORE_FILE = ".shardwiseignore"
SKIP_DIRS = frozenset({"node_modules", "venv", "__pycache__"})  # and every hidden directory

#: The skip reason of the kustomization file of a directory named on the command line whose build failed: the
#: input error says why, so the summary's hint to name the folder (given for one found by searching) is not given.
KUSTOMIZE_NOT_BUILT = "Kustomize file (not built: the input error says why)"
#: The skip reason of each file of a directory named on the command line whose kustomization was refused before
#: kustomize ran, for what it would hand kustomize (hostile18): not read one by one either.
KUSTOMIZE_REFUSED = "in a kustomization refused for its size (not read: the input error says why)"

#: What a file is, by its name alone, when that name is never a Kubernetes manifest, a Pulumi
#: preview/state file or a shardwise stack.
_NAMED = {
    "Chart.yaml": "Helm chart metadata", "Chart.yml": "Helm chart metadata", "Chart.lock": "Helm chart metadata",
    "requirements.yaml": "Helm chart metadata",
    "kustomization.yaml": "Kustomize file", "kustomization.yml": "Kustomize file", "Kustomization": "Kustomize file",
    "Pulumi.yaml": "Pulumi project file", "Pulumi.yml": "Pulumi project file",
    "cdk.json": "AWS CDK project file", "cdk8s.yaml": "cdk8s project file",
    "PulumiPolicy.yaml": "Pulumi policy pack project", "PulumiPolicy.yml": "Pulumi policy pack project",
    "package.json": "Node.js project file", "package-lock.json": "Node.js project file",
    "pnpm-lock.yaml": "Node.js project file", "composer.json": "PHP project file",
    ".gitlab-ci.yml": "CI configuration", ".gitlab-ci.yaml": "CI configuration", ".travis.yml": "CI configuration",
    "azure-pipelines.yml": "CI configuration", "bitbucket-pipelines.yml": "CI configuration",
    "cloudbuild.yaml": "CI configuration", "buildspec.yml": "CI configuration", "action.yml": "CI configuration",
    "action.yaml": "CI configuration", "dependabot.yml": "CI configuration", "renovate.json": "CI configuration",
    ".pre-commit-config.yaml": "pre-commit configuration", ".pre-commit-hooks.yaml": "pre-commit configuration",
    "compose.yaml": "Docker Compose file", "compose.yml": "Docker Compose file",
    "devcontainer.json": "dev container configuration", ".devcontainer.json": "dev container configuration",
    "mkdocs.yml": "tool configuration", ".readthedocs.yaml": "tool configuration",
    ".readthedocs.yml": "tool configuration", "codecov.yml": "tool configuration",
    ".golangci.yml": "tool configuration", ".golangci.yaml": "tool configuration",
    ".yamllint.yaml": "tool configuration", ".yamllint.yml": "tool configuration",
    ".shardwise.yaml": "shardwise configuration",
}
#: helmfile's state file (helmfile.yaml, helmfile.yaml.gotmpl, or each file of a helmfile.d folder: helmfile v1's
#: pkg/state lookup): Go template text over YAML that names releases and the values files they are installed with
#: (:mod:`.namedvalues`); never a Kubernetes object, and its ``{{ ... }}`` lines are no broken manifest.
HELMFILE = "helmfile state file (its releases' values files are read as Helm values; not a Kubernetes object)"
_NAMED_PATTERNS = (
    (re.compile(r"^helmfile\.ya?ml(?:\.gotmpl)?$"), HELMFILE),
    (re.compile(r"^(docker-)?compose[.-].*\.ya?ml$|^docker-compose\.ya?ml$"), "Docker Compose file"),
    (re.compile(r"^tsconfig.*\.json$"), "Node.js project file"),
)
_CI_DIRS = {".github": "CI configuration", ".circleci": "CI configuration", ".gitlab": "CI configuration",
            ".vscode": "tool configuration", ".devcontainer": "dev container configuration"}
CHART_TEMPLATE = "Helm chart template (not rendered)"
#: A searched folder's link to a folder is not followed (a loop, or a tree outside what was asked), and says so.
LINKED_DIR = "link to a folder (not followed: name the folder to lint it)"
CHART_FILE = "Helm chart file (not rendered)"
#: A Backstage software template's skeleton: the folder its ``fetch:template`` step copies, filling Nunjucks
#: placeholders (``${{ values.name }}``, ``{%- if values.x %}``) from the form's values; not YAML until the
#: scaffolder renders it (backstage.io/docs/features/software-templates/writing-templates, "fetch:template").
BACKSTAGE_SKELETON = "Backstage software template skeleton (not rendered: lint what the scaffolder writes)"
#: What names a Backstage software template (``template.yaml``, ``apiVersion: scaffolder.backstage.io/v1beta3``,
#: ``kind: Template``), and the ``url: ./FOLDER`` of its ``fetch:template`` steps (the skeleton folders).
_BACKSTAGE_FILES = ("template.yaml", "template.yml")
_BACKSTAGE_API = re.compile(r"^apiVersion:\s*[\"']?scaffolder\.backstage\.io/", re.MULTILINE)
_BACKSTAGE_URL = re.compile(r"^\s*url:\s*[\"']?\./([^\s\"'/]+)", re.MULTILINE)
HELM_VALUES = "Helm values"
MANIFEST_TEMPLATE = ("manifest template (not rendered: fill its placeholders, with envsubst or the tool it is for, "
                     "and lint the output)")
#: A YAML manifest kept as a template whose placeholders a tool fills before it is applied (``lws.yaml-template``
#: for envsubst, ``deploy.yaml.tpl`` for Terraform's templatefile, and ``deploy.yaml.tftpl``, the suffix Terraform's
#: templatefile documentation recommends (corpus38: it was passed over without a word), ``pod.yaml.j2`` /
#: ``lws.yaml.jinja2`` for Jinja): not YAML until rendered, so a searched folder skips it with that reason instead of
#: passing it over.
TEMPLATE_SUFFIX = re.compile(r"\.ya?ml(?:[.-]template|\.tpl|\.tmpl|\.tftpl|\.j2|\.jinja2?)$", re.IGNORECASE)


def _script(root: str, name: str) -> bool:
    """Whether a file met while searching is a shell script whose here-documents may hold manifests
    (:mod:`.shell`): ``*.sh``, ``*.bash``, or a file without a suffix whose first line is a sh/bash shebang."""
    if is_shell_name(name):
        return True
    return "." not in name and shebang_file(os.path.join(root, name))


#: What a program source's name ends with (:mod:`.programs`, imported only when one is met: a YAML-only lint pays
#: two string tests per file): a searched folder takes those of general-purpose languages only in a project.
PROGRAM_ENDS = (".jsonnet", ".libsonnet", ".cue", ".k", ".ts", ".js", ".py", ".go", "ockerfile", "ontainerfile",
                ".ipynb")
_PULUMI_PROJECT = ("Pulumi.yaml", "Pulumi.yml")


class _Projects:
    """Whether a folder met while searching ``top`` is a program's project folder: it holds a Pulumi.yaml, or it or a
    folder above it (up to ``top``) holds a cdk.json / cdk8s.yaml. Asked only for a folder holding a file with a
    program suffix, so a YAML-only walk asks nothing; each folder's answer is kept."""

    def __init__(self, top: str) -> None:
        self.top = os.path.abspath(top)
        self.cdk: dict[str, bool] = {}

    def _cdk(self, folder: str) -> bool:
        hit = self.cdk.get(folder)
        if hit is None:
            hit = any(os.path.isfile(os.path.join(folder, f)) for f in ("cdk.json", "cdk8s.yaml"))
            up = os.path.dirname(folder)
            if not hit and folder != self.top and up != folder and up.startswith(self.top):
                hit = self._cdk(up)
            self.cdk[folder] = hit
        return hit

    def __call__(self, root: str, files: list[str]) -> bool:
        return any(f in files for f in _PULUMI_PROJECT) or self._cdk(os.path.abspath(root))


def _taken(name: str, root: str, files: list[str], projects: _Projects) -> bool:
    """Whether a searched folder takes ``name``, a possible program source (:func:`.programs.taken`)."""
    from .programs import taken

    return taken(name, lambda: projects(root, files))


def _pulumi_project(path: str) -> str:
    """A Pulumi.yaml's skip reason: a project file, or a Pulumi YAML program that starts vLLM (its first
    :data:`.programs.HEAD_BYTES` read; one that cannot be read stays a project file, as it was without reading)."""
    from .programs import HEAD_BYTES, PULUMI_PROJECT_FILE, pulumi_project_skip

    try:
        text = read_file_bytes(path, path, HEAD_BYTES, head=True).decode("utf-8", "replace")
    except InputError:
        return PULUMI_PROJECT_FILE
    return pulumi_project_skip(text)


def _compose_file(path: str) -> str:
    """A Docker Compose file's skip reason: :func:`.programs.compose_skip` of its first :data:`.programs.HEAD_BYTES`
    (one that cannot be read stays a Compose file, as it was without reading)."""
    from .programs import COMPOSE_FILE, HEAD_BYTES, compose_skip

    try:
        text = read_file_bytes(path, path, HEAD_BYTES, head=True).decode("utf-8", "replace")
    except InputError:
        return COMPOSE_FILE
    return compose_skip(text)


def _is_skeleton(directory: str, folder: str, cache: dict[str, bool]) -> bool:
    """Whether ``folder`` of ``directory`` is a skeleton of a Backstage software template kept in ``directory``: a
    ``template.yaml`` whose first 64 KiB say ``apiVersion: scaffolder.backstage.io/...`` and name the folder in a
    step's ``url: ./FOLDER`` (``skeleton`` by the templates' convention, which is also taken)."""
    key = f"{directory}\0{folder}"
    hit = cache.get(key)
    if hit is None:
        hit = False
        for name in _BACKSTAGE_FILES:
            path = os.path.join(directory, name)
            if not os.path.isfile(path):
                continue
            try:
                text = read_file_bytes(path, path, 64 * 1024, head=True).decode("utf-8", "replace")
            except InputError:
                continue
            if _BACKSTAGE_API.search(text):
                hit = folder == "skeleton" or folder in _BACKSTAGE_URL.findall(text)
                break
        cache[key] = hit
    return hit


def _is_chart(directory: str, cache: dict[str, bool]) -> bool:
    hit = cache.get(directory)
    if hit is None:
        hit = cache[directory] = os.path.isfile(os.path.join(directory, "Chart.yaml"))
    return hit


def skipped_by_name(path: str, charts: dict[str, bool] | None = None,
                    places: dict[str, str | None] | None = None,
                    tests: dict[str, frozenset[str]] | None = None) -> str | None:
    """Why ``path`` is not an input, from its name and place alone (None: read it and see). ``charts`` and
    ``places`` keep what was found out about each directory (whether it holds a chart; what its place makes
    of the files in it) for the next file of one walk, and ``tests`` the files its Chainsaw tests assert."""
    charts = {} if charts is None else charts
    name = os.path.basename(path)
    reason = _NAMED.get(name)
    if reason is not None:
        return reason
    for pattern, why in _NAMED_PATTERNS:
        if pattern.match(name):
            return why
    if name.endswith((".yaml", ".yml", ".yaml.gotmpl")) and os.path.basename(os.path.dirname(
            os.path.abspath(path))) == "helmfile.d":
        return HELMFILE
    if _VALUES.match(name) and _is_chart(os.path.dirname(os.path.abspath(path)), charts):
        return HELM_VALUES
    if _STEP_ASSERTION.match(name):
        return TEST_ASSERTION
    where = os.path.dirname(path)  # the files of one directory share their place and their Chainsaw tests
    if name.endswith((".yaml", ".yml")):
        tests = {} if tests is None else tests
        # the folder as the path names it keys its tests' files beside the absolute one (the same folder in one run:
        # dirname(normpath(abspath(path))) is normpath(abspath(dirname(path)))); a file's own absolute name is made
        # only where the folder has a test that asserts files (issue 30: not an abspath per file of every walk)
        asserted = tests.get(where)
        if asserted is None:
            asserted = tests[where] = _chainsaw_assertions(os.path.normpath(os.path.abspath(where)), tests)
        if asserted and os.path.normpath(os.path.abspath(path)) in asserted:
            return TEST_ASSERTION
    if places is not None and where in places:
        return places[where]
    reason = _skipped_by_place(path, os.path.dirname(os.path.abspath(path)), charts)
    if places is not None:
        places[where] = reason
    return reason


_VALUES = re.compile(r"^values([.-].*)?\.ya?ml$")

#: A test's assertion, never applied: Kyverno Chainsaw and KUTTL compare each object of an assert (or errors) file
#: with the cluster's, field by field, and the file holds only the fields compared (a VLLMRuntime with no spec, a
#: Deployment with only its status), often with JMESPath keys such as ``(status.conditions[?type == 'Ready'])``.
TEST_ASSERTION = ("test assertion (Chainsaw or KUTTL: objects compared with the cluster's, never applied; lint the "
                  "files the test applies)")
#: The conventional name of an assert or errors file of a KUTTL or Chainsaw test step: ``<step index>-assert.yaml``,
#: ``<step index>-errors.yaml`` (chainsaw docs, "Conventional approach": 00-configmap.yaml is applied, 01-assert.yaml
#: asserted, 02-errors.yaml expected absent; KUTTL's test steps name them the same way).
_STEP_ASSERTION = re.compile(r"^\d+-(?:assert|errors)\.ya?ml$")
#: The file that holds a Chainsaw test in its folder (chainsaw's default ``--test-file``), whose ``assert`` and
#: ``error`` operations name the files they compare (``- assert: {file: assertions.yaml}``).
_CHAINSAW_TESTS = ("chainsaw-test.yaml", "chainsaw-test.yml")
_CHAINSAW_OPERATIONS = ("try", "catch", "finally", "cleanup")


def _chainsaw_assertions(directory: str, cache: dict[str, frozenset[str]]) -> frozenset[str]:
    """The files (absolute, normalised) that the ``assert`` and ``error`` operations of the Chainsaw tests in
    ``directory``'s ``chainsaw-test.yaml`` name, a glob expanded in its folder; none where there is no such test or
    it cannot be read (its files are then read as any other: nothing is skipped on a guess)."""
    hit = cache.get(directory)
    if hit is not None:
        return hit
    names: set[str] = set()
    for test in _CHAINSAW_TESTS:
        path = os.path.join(directory, test)
        if not os.path.isfile(path):
            continue
        import glob  # only where a folder holds a chainsaw test

        from .yamlsrc import load_documents
        try:
            docs = load_documents(read_file_bytes(path, path).decode("utf-8", "replace"), path)
        except InputError:
            continue
        for _, doc in docs:
            if not (isinstance(doc, dict) and doc.get("kind") == "Test"
                    and str(doc.get("apiVersion", "")).startswith("chainsaw.kyverno.io/")):
                continue
            spec = doc.get("spec")
            steps = spec.get("steps") if isinstance(spec, dict) else None
            for step in steps if isinstance(steps, list) else ():
                for part in _CHAINSAW_OPERATIONS:
                    ops = step.get(part) if isinstance(step, dict) else None
                    for op in ops if isinstance(ops, list) else ():
                        for verb in ("assert", "error"):
                            body = op.get(verb) if isinstance(op, dict) else None
                            file = body.get("file") if isinstance(body, dict) else None
                            if isinstance(file, str) and file and "://" not in file:
                                names.update(os.path.normpath(os.path.abspath(p))
                                             for p in glob.glob(os.path.join(directory, file)))
    cache[directory] = hit = frozenset(names)
    return hit


def _skipped_by_place(path: str, directory: str, charts: dict[str, bool]) -> str | None:
    """Why a file in ``directory`` (``path``'s, absolute) is not an input, from the folders it is in alone."""
    parts = os.path.normpath(path).replace("\\", "/").split("/")
    for part in parts[:-1]:
        if part in _CI_DIRS:
            return _CI_DIRS[part]
    # under a chart's templates/: Go templates, not YAML until rendered; under its files/: what the
    # templates read (.Files.Get, often through tpl), deployed only as the chart renders it
    d = directory
    while True:
        parent = os.path.dirname(d)
        base = os.path.basename(d)
        if base in ("templates", "files") and _is_chart(parent, charts):
            return CHART_TEMPLATE if base == "templates" else CHART_FILE
        if parent != d and _is_skeleton(parent, base, charts):
            return BACKSTAGE_SKELETON
        if parent == d:
            return None
        d = parent


def _chart_above_cwd() -> str | None:
    """The outermost chart folder above the current directory, as a relative path (``..``), where ``templates/`` or
    ``files/`` of a chart is searched from inside (``cd chart/templates && shardwise lint .``); None when none is."""
    here = os.getcwd()
    found, d = None, here
    while os.path.dirname(d) != d:
        d = os.path.dirname(d)
        if os.path.isfile(os.path.join(d, "Chart.yaml")):
            found = d
    return os.path.relpath(found, here) if found is not None else None


def unrendered_folders(skipped: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The folders of the charts (``Helm chart``) and kustomizations (``kustomization``) whose files are in
    ``skipped`` unrendered (found by searching, or ``.``), in order, each once: a chart's is the folder of its
    ``Chart.yaml`` above ``templates/`` or ``files/`` (the outermost, for a subchart: rendering it renders both)."""
    out: dict[str, str] = {}
    for path, why in skipped:
        if why == "Kustomize file":
            out.setdefault(os.path.normpath(os.path.dirname(path) or "."), "kustomization")
        elif why in (CHART_TEMPLATE, CHART_FILE):
            chart = None
            d = os.path.dirname(os.path.normpath(path))
            while d and d != os.path.dirname(d):
                if os.path.isfile(os.path.join(d, "Chart.yaml")):
                    chart = d
                d = os.path.dirname(d)
            if chart is None and os.path.isfile("Chart.yaml") and not os.path.isabs(path):
                chart = "."
            if chart is None and not os.path.isabs(path):
                chart = _chart_above_cwd()  # searched from inside the chart (its templates/ as .): named by ../
            if chart is not None:
                out.setdefault(os.path.normpath(chart), "Helm chart")
    charts = [d for d, what in out.items() if what == "Helm chart"]
    return [(d, what) for d, what in out.items() if what != "Helm chart"
            or not any(c != d and (c == "." or d.startswith(c.rstrip("/") + "/")) for c in charts)]


# --------------------------------------------------------------------------------------- excludes


@dataclass(frozen=True)
class Pattern:
    """One gitignore-like pattern: ``text`` as written, and whether a path relative to the root matches it
    (:mod:`.globs`: in time linear in the path, whatever the pattern)."""

    text: str
    match: Callable[[str], bool]
    negate: bool
    dir_only: bool


#: The longest pattern compiled: Linux's PATH_MAX. A longer one is an input error (:func:`compile_pattern`).
MAX_PATTERN = 4096


def compile_pattern(line: str) -> Pattern | None:
    """A ``.shardwiseignore`` line or an ``--exclude`` value as a :class:`Pattern` (None: blank or a
    comment); :class:`~.globs.PatternError` for one that cannot mean anything (``[z-a]``). Semantics as
    in ``.gitignore``: ``!`` re-includes, a trailing ``/`` matches only directories, a pattern with a
    ``/`` elsewhere is relative to the current directory and one without matches a name at any depth,
    ``*`` and ``?`` stay within a path segment, ``**`` spans segments."""
    text = line.rstrip("\n").rstrip()
    if not text or text.startswith("#"):
        return None
    negate = text.startswith("!")
    glob = text[1:] if negate else text
    if glob.startswith(("\\#", "\\!")):
        glob = glob[1:]
    dir_only = glob.endswith("/")
    glob = glob.rstrip("/")
    if glob.startswith("./"):
        glob = glob[2:]
    if not glob:
        return None
    anchored = "/" in glob
    from . import globs  # only where there are patterns: a run with none never loads the matcher (start-up time)

    if len(glob) > MAX_PATTERN:  # hostile9: a 5 MB pattern took 7.7 s of CPU for two paths (the matcher's state grows
        raise globs.PatternError(f"{len(glob):,} characters, longer than the {MAX_PATTERN:,} of the longest path "
                                 "(PATH_MAX)")  # with the pattern, and every path is stepped through it)

    toks = globs.tokens(glob.lstrip("/"))
    if not anchored:
        toks.insert(0, globs.DIRS)
    return Pattern(text, globs.matcher(toks), negate, dir_only)


@dataclass
class Excludes:
    """Exclusion patterns, matched against paths relative to ``root`` (the last matching one decides).
    A pattern that cannot be compiled is left out and is an input error in ``errors``, with the file and
    line it came from: the other patterns still apply and every input is still read."""

    patterns: list[Pattern] = field(default_factory=list)
    root: str = "."
    errors: list[InputError] = field(default_factory=list)

    @classmethod
    def from_lines(cls, lines: Iterable[str], root: str = ".", source: str | None = None) -> Excludes:
        ex = cls([], root)
        ex.extend(lines, source)
        return ex

    def extend(self, lines: Iterable[str], source: str | None = None, numbered: bool = False) -> None:
        """Add ``lines`` from ``source`` (a file, or ``--exclude``); ``numbered``: errors give the line number."""
        for n, line in enumerate(lines, 1):
            from . import globs  # as in compile_pattern

            try:
                p = compile_pattern(line)
            except globs.PatternError as e:
                shown = line.strip()
                shown = repr(shown) if len(shown) <= 200 else f"{shown[:60]!r}…"
                self.errors.append(InputError(f"invalid exclude pattern {shown}: {e}; it is not applied",
                                              source, n if numbered else None))
                continue
            if p is not None:
                self.patterns.append(p)

    def _relative(self, path: str) -> str:
        absolute = os.path.abspath(path)
        rel = os.path.relpath(absolute, os.path.abspath(self.root))
        if rel == ".." or rel.startswith(".." + os.sep):
            rel = absolute.lstrip(os.sep)  # outside the root: only patterns without a "/" can match
        return rel.replace(os.sep, "/")

    def _matches(self, rel: str, is_dir: bool) -> bool:
        hit = False
        for p in self.patterns:
            if (is_dir or not p.dir_only) and p.match(rel):
                hit = not p.negate
        return hit

    def excluded(self, path: str, is_dir: bool) -> bool:
        """Whether ``path`` or one of the directories above it (below the root) is excluded."""
        if not self.patterns or path == "-":
            return False
        rel = self._relative(path)
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if self._matches("/".join(parts[:i]), True):
                return True
        return self._matches(rel, is_dir)


def read_ignore_file(cwd: str = ".") -> list[str]:
    """The lines of ``.shardwiseignore`` in ``cwd`` (none when there is no such file). Only a regular file
    inside ``cwd`` is read (:mod:`..model.files`): a FIFO, a device or a link out of the directory is an
    input error."""
    path = os.path.join(cwd, IGNORE_FILE)
    if not os.path.lexists(path):
        return []
    if not inside(path, cwd):
        raise InputError(f"cannot read the ignore file: it is a symbolic link to {link_target(path)}, outside "
                         "the current directory; shardwise does not follow it", IGNORE_FILE)
    try:
        data = read_file_bytes(path, IGNORE_FILE)
    except InputError as e:
        raise InputError(e.message.replace("cannot read: ", "cannot read the ignore file: ", 1)
                         .replace("not read: ", "the ignore file is not read: ", 1), IGNORE_FILE) from None
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise InputError("cannot read the ignore file: not UTF-8 text", IGNORE_FILE) from None


# ------------------------------------------------------------------------------------------ walking


def walk(top: str, onerror: Callable[[OSError], None]) -> Iterator[tuple[str, list[str], list[str], set[str]]]:
    """``os.walk(top, onerror=onerror)`` top-down, without following links to directories, on a stack instead of
    recursion: Python 3.11's ``os.walk`` recurses once per level, so a directory about 1,000 levels deep ended
    the run with a :class:`RecursionError`. The caller may prune ``dirs`` in place, as with ``os.walk``; the
    order is the same (depth first, ``dirs`` in the order the caller leaves them). The fourth item names the
    entries of ``dirs`` that are symbolic links to directories (never descended: the caller says so)."""
    stack = [top]
    while stack:
        root = stack.pop()
        dirs: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(root) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else files).append(entry.name)
                    if is_dir and entry.is_symlink():
                        links.add(entry.name)
        except OSError as e:
            onerror(e)
            continue
        yield root, dirs, files, links
        stack.extend(child(root, d) for d in reversed(dirs) if d not in links)


def child(root: str, name: str) -> str:
    """``name`` inside the searched folder ``root``, as a report names it: ``deploy/a.yaml`` under ``.``, never
    ``./deploy/a.yaml`` (the path other linters print, and the one GitHub and SARIF name a repository's file by).
    A file named ``-`` stays ``./-``: bare, it is standard input to every reader (fuzz20)."""
    return name if root == "." and name != "-" else os.path.join(root, name)


def tidy(path: str) -> str:
    """A path named on the command line as the reports name it: without leading ``./`` (``./deploy/`` is
    ``deploy/``, ``./`` is ``.``) and without repeated ``/``. Nothing else is rewritten (``a/../b`` stays: through
    a symbolic link it is not ``b``). ``./-`` stays ``./-``: the file named ``-``, never standard input (fuzz20)."""
    if path == "-" or not path:
        return path
    path = re.sub(r"/{2,}", "/", path)
    while path.startswith("./") and len(path) > 2 and path[2:].lstrip("/") != "-":
        path = path[2:].lstrip("/") or "."
    return "." if path == "./" else path


@dataclass
class Selection:
    """The outcome of expanding the paths of a run."""

    files: list[str] = field(default_factory=list)  # to read, in order
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why it is not an input)
    excluded: list[str] = field(default_factory=list)  # paths excluded (a directory ends with "/")
    errors: list[InputError] = field(default_factory=list)
    renders: list[str] = field(default_factory=list)  # chart and kustomization directories named, to render
    order: dict[str, int] = field(default_factory=dict)  # every path met -> its place in the walk

    def place(self, path: str | None) -> int:
        """Where ``path`` came in the walk (for putting what is reported about it in input order)."""
        return self.order.get(path or "", len(self.order))


def select_inputs(paths: Sequence[str], excludes: Excludes | None = None, *, render: bool = True) -> Selection:
    """Expand ``paths`` (files, directories searched recursively, ``-`` for stdin) into the files to read;
    with ``render=False`` a chart or kustomization directory named is searched like any other."""
    excludes = excludes or Excludes()
    sel = Selection()
    charts: dict[str, bool] = {}
    places: dict[str, str | None] = {}
    tests: dict[str, frozenset[str]] = {}
    terraform: list[str] = []  # the Terraform files met while searching, and the YAML and JSON files
    searched: set[str] = set()

    # the same file met twice (``lint f.yaml ./f.yaml .``, ``- -``) is read once, under the name met first: its
    # findings reported once (hostile8); only where more than one path is named (one folder's walk meets each once)
    met: set[str] | None = set() if len(paths) > 1 else None

    def consider(path: str) -> None:
        if met is not None:
            real = os.path.realpath(path)
            if real in met:
                return
            met.add(real)
        sel.order.setdefault(path, len(sel.order))
        if excludes.excluded(path, False):
            sel.excluded.append(path)
            return
        reason = skipped_by_name(path, charts, places, tests)
        if reason == "Pulumi project file" and os.path.basename(path) in _PULUMI_PROJECT:
            reason = _pulumi_project(path)
        elif reason == "Docker Compose file":
            reason = _compose_file(path)
        if reason is not None:
            sel.skipped.append((path, reason))
        else:
            sel.files.append(path)

    renders: set[str] = set()
    for p in map(tidy, paths):
        if p == "-":
            if "<stdin>" not in sel.order:
                sel.order["<stdin>"] = len(sel.order)
                sel.files.append(p)
        elif os.path.isdir(p):
            if excludes.excluded(p, True):
                sel.excluded.append(p.rstrip("/") + "/")
                continue
            if render and to_render(p) is not None:  # a chart or kustomization named: rendered, not searched
                sel.order.setdefault(p, len(sel.order))
                if p.rstrip("/") not in renders:
                    renders.add(p.rstrip("/"))
                    sel.renders.append(p)
                continue

            def unreadable(e: OSError, top: str = p) -> None:
                where = e.filename or top
                sel.order.setdefault(where, len(sel.order))
                sel.errors.append(InputError(f"cannot read directory: {e.strerror or e}", where))

            projects = _Projects(p)
            for root, dirs, files, links in walk(p, unreadable):
                keep = []
                for d in sorted(dirs):
                    if d in SKIP_DIRS or d.startswith("."):
                        continue
                    if excludes.excluded(child(root, d), True):
                        sel.excluded.append(child(root, d) + "/")
                    elif d in links:  # not searched: said, so the files behind it are not passed over unseen
                        path = child(root, d) + "/"
                        sel.order.setdefault(path, len(sel.order))
                        sel.skipped.append((path, LINKED_DIR))
                    else:
                        keep.append(d)
                dirs[:] = keep
                for f in sorted(files):
                    if TEMPLATE_SUFFIX.search(f):
                        path = child(root, f)
                        sel.order.setdefault(path, len(sel.order))
                        if excludes.excluded(path, False):
                            sel.excluded.append(path)
                        else:
                            sel.skipped.append((path, MANIFEST_TEMPLATE))
                        continue
                    if f.endswith(INPUT_SUFFIXES) or f.endswith(TERRAFORM_SUFFIX) or _script(root, f) or (
                            f.endswith(PROGRAM_ENDS) or "ontainerfile" in f or "ockerfile" in f) and _taken(
                            f, root, files, projects):
                        path = child(root, f)
                        if os.path.islink(path) and not inside(path, p):
                            sel.order.setdefault(path, len(sel.order))
                            sel.errors.append(InputError(
                                f"not read: a symbolic link to {link_target(path)}, outside {p}; shardwise "
                                "follows no link out of a folder it searches (name the file on the command line to "
                                "read it)", path))
                            continue
                        consider(path)
                        if f.endswith(TERRAFORM_SUFFIX):
                            terraform.append(path)
                        elif f.endswith(INPUT_SUFFIXES) and sel.files and sel.files[-1] == path:
                            searched.add(path)  # to read: not excluded, skipped by name or met before
        elif os.path.exists(p):
            target = to_render(p)
            if target is not None:  # Chart.yaml or kustomization.yaml named: its directory is rendered
                sel.order.setdefault(p, len(sel.order))
                if target.rstrip("/") not in renders:
                    renders.add(target.rstrip("/"))
                    sel.renders.append(target)
            else:
                consider(p)
        elif os.path.islink(p):  # a link to nothing, or a loop of links: reading it says which
            consider(p)
        else:
            sel.order.setdefault(p, len(sel.order))
            sel.errors.append(InputError("no such file or directory", p))
    if terraform:
        _skip_terraform_templates(sel, terraform, searched, excludes)
    return sel


#: A Terraform template a configuration renders: ``templatefile("${path.module}/values.yaml", {...})`` (or a bare
#: path, relative to the configuration's folder), or ``template = file(...)`` of a ``template_file`` data source.
#: ``${path.root}`` and ``${path.cwd}`` are read as the configuration's folder too (review29): they are where the
#: configuration is a root module run from its own folder, the way a repository's example is applied; a path that
#: begins with any other interpolation is not resolved.
_TF_TEMPLATE = re.compile(
    r'(?:\btemplatefile|\btemplate\s*=\s*file)\(\s*"(?:\$\{path\.(?:module|root|cwd)\}/)?([^"$\n]+)"')
#: The opening of such a call, whose first argument may span lines and name its file through a variable (corpus43:
#: CloudThrill's vllm-production-stack-terraform, ``template = file(var.inference_hardware == "gpu" ?
#: "${path.module}/${var.gpu_vllm_helm_config}" : "${path.module}/${var.cpu_vllm_helm_config}")``).
_TF_TEMPLATE_CALL = re.compile(r'(?:\btemplatefile|\btemplate\s*=\s*file)\(')
#: A path written in that argument: under the configuration's folder, made of literal parts and ``${var.NAME}``.
_TF_PATH_LITERAL = re.compile(r'"\$\{path\.(?:module|root|cwd)\}/((?:[^"$\n]|\$\{var\.\w+\})+)"')
_TF_VAR_REF = re.compile(r"\$\{var\.(\w+)\}")
#: A variable block and the literal string default it declares (``variable "x" {\n  default = "a/b.tpl"\n}``).
_TF_VARIABLE = re.compile(r'^\s*variable\s+"(\w+)"\s*\{', re.MULTILINE)
_TF_DEFAULT = re.compile(r'^\s*default\s*=\s*"([^"$\n]*)"\s*$', re.MULTILINE)
#: How far a call's argument, or a variable block, is looked at (a path argument is a line or a conditional of a few).
_TF_SPAN = 2048


def _balanced(text: str, start: int, opening: str, closing: str) -> str:
    """``text`` from ``start`` (just after an ``opening``) to its matching ``closing``, at most :data:`_TF_SPAN`
    characters (a quoted string's brackets are counted too: a path holds none that matter)."""
    depth = 1
    end = min(len(text), start + _TF_SPAN)
    for i in range(start, end):
        c = text[i]
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return text[start:i]
    return text[start:end]


def _first_argument(args: str) -> str:
    """The first argument of a call's argument list: up to its first comma outside brackets and quotes
    (``templatefile(PATH, { vars })``: a path written among the variables is no template)."""
    depth = 0
    quoted = False
    for i, c in enumerate(args):
        if c == '"' and (i == 0 or args[i - 1] != "\\"):
            quoted = not quoted
        elif quoted:
            continue
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            return args[:i]
    return args


def _uncommented(text: str) -> str:
    """``text`` with each whole-line comment (``#``, ``//``) blanked, its lines kept (a commented-out call renders
    nothing)."""
    return "\n".join("" if line.lstrip().startswith(("#", "//")) else line for line in text.splitlines())


def terraform_defaults(text: str) -> dict[str, str]:
    """The literal string ``default`` of each ``variable`` block of a Terraform file (HCL is not parsed: a block's
    first ``default = "..."`` line; a default built from an expression is not taken)."""
    out: dict[str, str] = {}
    for m in _TF_VARIABLE.finditer(text):
        d = _TF_DEFAULT.search(_balanced(text, m.end(), "{", "}"))
        if d is not None:
            out.setdefault(m.group(1), d.group(1))
    return out


def terraform_template_paths(text: str, defaults: dict[str, str]) -> list[str]:
    """The files, relative to the configuration's folder, that ``templatefile`` and ``template_file`` calls of a
    Terraform file render: a literal path (:data:`_TF_TEMPLATE`), and each path under ``${path.module}`` (or root,
    cwd) written in the call's first argument, on its own lines or in a conditional, whose ``${var.NAME}`` parts take
    the variable's default from the module's ``variable`` blocks (``defaults``): what ``terraform plan`` renders
    where no tfvars sets it. A path with a variable that declares no literal default is not resolved."""
    text = _uncommented(text)
    out: list[str] = []
    for line in text.splitlines():
        out.extend(m.group(1) for m in _TF_TEMPLATE.finditer(line))
    for call in _TF_TEMPLATE_CALL.finditer(text):
        for m in _TF_PATH_LITERAL.finditer(_first_argument(_balanced(text, call.end(), "(", ")"))):
            names = _TF_VAR_REF.findall(m.group(1))
            if all(n in defaults for n in names):
                out.append(_TF_VAR_REF.sub(lambda v: defaults[v.group(1)], m.group(1)))
    return list(dict.fromkeys(p for p in out if p and "${" not in p))


#: The skip reason of a YAML or JSON file that a Terraform file of the inputs renders as a template.
TERRAFORM_TEMPLATE = ("Terraform template (a Terraform file of the inputs renders it with templatefile, which fills "
                      "its ${...} and %{...} first: lint what Terraform renders)")


#: The skip reason of a template a Terraform file of the inputs renders that the search does not take (its name is
#: no YAML or JSON file's: ``vllm-values.tpl``, ``values.tftpl``) and that mentions vLLM, with the line that does.
TERRAFORM_TEMPLATE_UNREAD = ("Terraform template that mentions vLLM (`{word}` at line {line}), not read: a Terraform "
                             "file of the inputs renders it with templatefile (the values of a helm_release, or a "
                             "manifest), and shardwise reads no template; lint what Terraform renders")
_MENTIONS_VLLM = re.compile(r"vllm", re.I)


def _unread_template(path: str) -> str | None:
    """The skip reason of a template no search takes (:data:`TERRAFORM_TEMPLATE_UNREAD`) where its first
    :data:`.programs.HEAD_BYTES` mention vLLM outside a comment, else None (a template of something else, one that
    cannot be read, or none there: Terraform says so when it plans)."""
    from .programs import HEAD_BYTES

    if not os.path.isfile(path):
        return None
    try:
        text = read_file_bytes(path, path, HEAD_BYTES, head=True).decode("utf-8", "replace")
    except InputError:
        return None
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("#", "//")):
            continue
        m = _MENTIONS_VLLM.search(line)
        if m is not None:
            word = line.strip()
            return TERRAFORM_TEMPLATE_UNREAD.format(word=word if len(word) <= 80 else word[:77] + "...", line=n)
    return None


def _skip_terraform_templates(sel: Selection, terraform: list[str], searched: set[str], excludes: Excludes) -> None:
    """Skip, as a Terraform template, each YAML or JSON file met while searching that a searched Terraform file of the
    run renders with ``templatefile`` (the Helm values of a ``helm_release``, a manifest ``yamldecode`` reads): its
    ``${...}`` interpolations and ``%{ if }`` directives are Terraform's, not YAML, until Terraform renders it, as a
    ``*.yaml.tpl`` met while searching is skipped. A file named on the command line is read, as such a template is.
    A rendered file the search does not take (``vllm-values.tpl``, no YAML name) and that mentions vLLM is said as
    not read (:func:`_unread_template`), where nothing else of the run has named or excluded it, so its servers do
    not pass without a word. A path written through a variable takes the variable's default from the ``variable``
    blocks of the Terraform files of the same folder (:func:`terraform_template_paths`)."""
    wanted = {os.path.normpath(os.path.abspath(f)): f for f in searched}
    met = {os.path.normpath(os.path.abspath(f)) for f in sel.order}
    found: set[str] = set()
    unread: dict[str, str] = {}
    texts: dict[str, str] = {}
    for tf in terraform:
        try:
            texts[tf] = read_file_bytes(tf, tf).decode("utf-8", "replace")
        except InputError:
            continue
    defaults: dict[str, dict[str, str]] = {}  # a module's variables, from every .tf of its folder in the run
    for tf, text in texts.items():
        folder = defaults.setdefault(os.path.dirname(os.path.abspath(tf)), {})
        for name, value in terraform_defaults(_uncommented(text)).items():
            folder.setdefault(name, value)
    for tf, text in texts.items():
        for rel in terraform_template_paths(text, defaults.get(os.path.dirname(os.path.abspath(tf)), {})):
            target = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(tf)), rel))
            if target in wanted:
                found.add(wanted[target])
            elif target not in met and target not in unread and not target.endswith(INPUT_SUFFIXES):
                path = os.path.normpath(os.path.join(os.path.dirname(tf), rel))
                reason = None if excludes.excluded(path, False) else _unread_template(target)
                if reason is not None:
                    unread[target] = reason
                    sel.order.setdefault(path, len(sel.order))
                    sel.skipped.append((path, reason))
                else:
                    unread[target] = ""
    if found:
        sel.files = [f for f in sel.files if f not in found]
        sel.skipped.extend((f, TERRAFORM_TEMPLATE) for f in sorted(found, key=sel.place))

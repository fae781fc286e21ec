"""Layering: rules/ never imports pulumi (the linter must start without the Pulumi SDK)."""

import ast
import os
import pathlib
import re
import subprocess
import sys

from repo_paths import ROOT


def test_no_pulumi_import_in_rules_source():
    offenders = []
    for path in (ROOT / "rules").rglob("*.py"):
        if path == ROOT / "rules" / "__main__.py":
            continue  # the policy pack entry point is the one place that imports pulumi_policy
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0].startswith("pulumi")]
    assert offenders == []


def test_importing_every_rules_module_loads_no_pulumi():
    code = (
        "import sys, pkgutil, importlib, shardwise.rules as r\n"
        "for m in pkgutil.walk_packages(r.__path__, 'shardwise.rules.'):\n"
        "    if m.name != 'shardwise.rules.__main__': importlib.import_module(m.name)\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0].startswith('pulumi'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_linting_manifests_does_not_import_the_pulumi_or_stack_adapters():
    """Nor the report formats not asked for: the front end imports the one it writes (app/run.py's render);
    text.py's escaping of what a repository wrote serves every message the CLI prints. Nor argparse: ``--format``
    and ``--output`` are read without it (app/cli.py's _plain_lint)."""
    code = (
        "import sys\n"
        "from shardwise.rules.app.cli import main\n"
        "rc = main(['lint', 'examples/llama-3.1-70b-tp4.yaml', '--format', 'json', '--output', '/dev/null'])\n"
        "print(rc, sorted(m for m in sys.modules if m in ('shardwise.rules.adapters.pulumi',"
        " 'shardwise.rules.adapters.stack', 'pydantic', 'jinja2', 'argparse', 'gettext', 'locale')"
        " or m.startswith('shardwise.rules.report.')"
        " and m.rsplit('.', 1)[1] in ('sarif', 'github', 'markdown', 'docgen', 'diff_markdown')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "0 []"


#: What a one-file lint of a Deployment (with a Service and a ScaledObject) leaves unimported (start-up time): the
#: readers of the other kinds of objects (KServe's and OME's too, with what the operators' readers share, and the
#: generic pod finder with the search of unread objects), the glob matcher without exclude patterns, the rules of
#: objects the file does not hold and the registry
#: (checks/index.py), the ``config.json`` reader of a model the catalog holds (and :mod:`glob`, which only the
#: Hugging Face cache's search uses), :mod:`shlex` (only args with quotes, backslashes or comments, or a secret flag),
#: :mod:`json` (the accelerator table is read from its cache), argparse with gettext and locale (``lint PATH``
#: without options is read without them), what argparse's help formatter imported (shutil, with bz2, lzma and
#: zlib), :mod:`weakref` (capacity.group takes ``ref`` from the built-in ``_weakref``) and :mod:`unicodedata` (only
#: a Service type Kubernetes refuses, for the hint).
NOT_IMPORTED_BY_ONE_DEPLOYMENT = (
    *(f"shardwise.rules.adapters.k8s.{m}" for m in ("configmaps", "knative", "kthena", "operators", "policies",
                                                    "ray", "rbg", "kserve", "generic", "unread", "ome", "serving",
                                                    "helmrelease", "apptemplate", "modelservice", "nim")),
    "shardwise.rules.catalog.hfconfig", "glob", "shlex", "json", "argparse", "gettext", "locale",
    "shardwise.rules.adapters.globs", "shardwise.rules.adapters.yamlpy", "shardwise.rules.adapters.charts",
    "shardwise.rules.adapters.k8s.mentions", "shardwise.rules.adapters.jsonsrc",
    "shardwise.rules.checks.registry", *(f"shardwise.rules.checks.{m}" for m in ("sw002", "sw003", "sw005", "sw406")),
    "shardwise.rules.engine.split", "shardwise.rules.engine.forked", "shardwise.rules.app.output",
    "shutil", "bz2", "lzma", "base64", "tempfile", "pickle", "yaml", "weakref", "unicodedata",
)


def test_a_one_file_lint_imports_only_what_it_needs(tmp_path):
    text = (ROOT / "examples" / "llama-3.1-70b-tp4.yaml").read_text(encoding="utf-8")
    one = tmp_path / "one.yaml"
    one.write_text(text[text.index("apiVersion: apps/v1"):], encoding="utf-8")  # the Deployment and what follows
    code = (
        "import sys\n"
        "from shardwise.rules.app.cli import main\n"
        f"rc = main(['lint', {str(one)!r}])\n"
        f"print(rc, sorted(m for m in {NOT_IMPORTED_BY_ONE_DEPLOYMENT!r} if m in sys.modules))\n"
        "print(sorted(m for m in ('shardwise.rules.adapters.k8s.autoscaling', 'shardwise.rules.checks.sw403')"
        " if m in sys.modules))\n"
    )
    # a run with bytecode writing on first, as the first run after an install: it writes the stores beside the
    # bytecode (accelerator table, catalog indexes) where they are missing or stale, as `make setup` does
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path, env=env)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.splitlines()[-2:] == [
        "0 []", "['shardwise.rules.adapters.k8s.autoscaling', 'shardwise.rules.checks.sw403']"]


# --- the floor plan: one folder per concern, imports only point down -------------------------------------

#: The packages of rules/, lowest first. A module may import its own package and the packages before it;
#: every import counts, the ones inside functions too. rules/README.md says what each folder holds.
LAYERS = ("model", "vllm", "catalog", "capacity", "render", "engine", "adapters", "checks", "report", "app")
#: What components/ may use: the packages it builds and validates with, never the report or the front ends.
COMPONENTS_MAY_USE = {"model", "vllm", "catalog", "capacity", "render", "engine", "adapters", "checks"}
#: rules/ itself holds only the pack's entry point, the compiled YAML reader and the stores of the modules' bytecode,
#: compiled dataclass methods and regular expressions (the last four below every layer).
ROOT_MODULES = {"__init__", "__main__", "_yamlfast", "_module_code", "_dataclass_code", "_regex_code"}


def _imports(path: pathlib.Path, module: str, is_package: bool) -> list[tuple[str, int]]:
    """(absolute module imported, line) for every import of ``shardwise`` in a file, `from X import mod` as X.mod."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    base = module.split(".") if is_package else module.split(".")[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.startswith("shardwise")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base[: len(base) - node.level + 1]
                target = ".".join(parts + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("shardwise"):
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.append((sub if _is_module(sub) else target, node.lineno))
    return out


def _is_module(name: str) -> bool:
    parts = name.split(".")
    top = {"rules": ROOT / "rules", "components": ROOT / "components"}.get(parts[1] if len(parts) > 1 else "")
    if top is None:
        return False
    p = top.joinpath(*parts[2:])
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file() or parts[2:] == ["_yamlfast"]


def _modules(folder: str):
    prefix = {"rules": "shardwise.rules", "components": "shardwise.components"}[folder]
    for path in sorted((ROOT / folder).rglob("*.py")):
        rel = path.relative_to(ROOT / folder).with_suffix("").parts
        is_package = rel[-1] == "__init__"
        parts = rel[:-1] if is_package else rel
        yield path, ".".join((prefix, *parts)), is_package, parts


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["shardwise", "rules"] and len(parts) > 2 and parts[2] in LAYERS else None


def test_rules_is_one_folder_per_concern():
    loose = sorted(p.name for p in (ROOT / "rules").glob("*.py") if p.stem not in ROOT_MODULES)
    folders = sorted(p.name for p in (ROOT / "rules").iterdir() if (p / "__init__.py").is_file())
    assert (loose, folders) == ([], sorted(LAYERS))


def test_rules_imports_point_down_the_layers():
    upward = []
    for path, module, is_package, parts in _modules("rules"):
        own = parts[0] if parts and parts[0] in LAYERS else None
        for target, line in _imports(path, module, is_package):
            if target.startswith("shardwise.components"):
                upward.append(f"{path.relative_to(ROOT)}:{line}: {target} (rules/ never imports the components)")
                continue
            theirs = _layer(target)
            if own is None or theirs is None:
                continue  # the pack entry point and the package root sit above and below every layer
            if LAYERS.index(theirs) > LAYERS.index(own):
                upward.append(f"{path.relative_to(ROOT)}:{line}: {own} imports {target}")
    assert upward == []


def test_components_use_only_the_layers_they_build_with():
    wrong = []
    for path, module, is_package, _ in _modules("components"):
        for target, line in _imports(path, module, is_package):
            theirs = _layer(target)
            if theirs is not None and theirs not in COMPONENTS_MAY_USE:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    assert wrong == []


#: The modules of rules/render/, lowest first: one per component and what they share (its __init__ lists them).
#: Each may import only the modules before it, so the folder has no import cycle.
RENDER_MODULES = ("common", "pod", "workload", "nodepool", "vllm", "multinode", "network", "router", "environment")


def test_render_modules_import_only_the_ones_before_them():
    found = sorted(p.stem for p in (ROOT / "rules" / "render").glob("*.py") if p.stem != "__init__")
    assert found == sorted(RENDER_MODULES)
    upward = []
    for path, module, is_package, parts in _modules("rules"):
        if parts[:1] != ("render",) or len(parts) != 2:
            continue
        own = RENDER_MODULES.index(parts[1])
        for target, line in _imports(path, module, is_package):
            tp = target.split(".")
            if tp[:3] == ["shardwise", "rules", "render"] and len(tp) > 3 and RENDER_MODULES.index(tp[3]) >= own:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    assert upward == []

def test_no_rule_imports_another_rule():
    """Shared helpers of several rules live in checks/_*.py; the registry is the one module that imports rules."""
    crossing = []
    for path, module, is_package, parts in _modules("rules"):
        if parts[:1] != ("checks",) or parts[-1].startswith("_") or parts[-1] in ("registry", "index"):
            continue
        for target, line in _imports(path, module, is_package):
            tp = target.split(".")
            # the index (checks/index.py) is the registry as data, no rule: SW001 reads its codes (hostile9)
            if tp[:3] == ["shardwise", "rules", "checks"] and len(tp) > 3 and not tp[3].startswith("_") and (
                    tp[3] != "index"):
                crossing.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    assert crossing == []


def test_the_rules_readme_names_every_folder():
    readme = (ROOT / "rules" / "README.md").read_text(encoding="utf-8")
    named = re.findall(r"^- `([a-z]+)/`", readme, re.M)
    assert named == list(LAYERS)


# --- contracts between the floors -----------------------------------------------------------------------


def test_no_rule_imports_an_adapter():
    """A rule reads the inventory, never the input it came from: checks/ imports nothing of adapters/."""
    reaching = []
    for path, module, is_package, parts in _modules("rules"):
        if parts[:1] != ("checks",):
            continue
        reaching += [f"{path.relative_to(ROOT)}:{line}: {target}" for target, line in _imports(path, module, is_package)
                     if _layer(target) == "adapters"]
    assert reaching == []


def _imported_names(path: pathlib.Path, module: str, is_package: bool) -> list[tuple[str, int]]:
    """(absolute dotted name, line) of every shardwise module and name a file imports: ``from X import y`` as X.y."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    base = module.split(".") if is_package else module.split(".")[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.startswith("shardwise")]
        elif isinstance(node, ast.ImportFrom):
            target = (".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
                      if node.level else node.module or "")
            if target.startswith("shardwise"):
                out += [(f"{target}.{a.name}", node.lineno) for a in node.names]
    return out


def _package(name: str) -> str | None:
    """The floor a dotted name lives on (``model`` ... ``app``), ``components``, or None (the package roots)."""
    parts = name.split(".")
    if parts[:2] == ["shardwise", "components"]:
        return "components"
    return _layer(name)


#: Private imports across floors that the work on their owners is removing: empty since the capacity front door
#: (report/ and plan take the sizing from capacity/, not from the rules' private helper). Never add to it.
PRIVATE_IMPORTS_BEING_REMOVED: set[str] = set()


def test_no_module_imports_another_floors_private_module_or_name():
    """``_name`` is private to its floor (``checks/_capacity.py``, ``render.workload._meta``): another floor, or
    components/, imports public names only. The compiled YAML reader (``rules/_yamlfast``) sits below every floor."""
    private = set()
    for folder in ("rules", "components"):
        for path, module, is_package, parts in _modules(folder):
            own = "components" if folder == "components" else (parts[0] if parts and parts[0] in LAYERS else None)
            for name, _line in _imported_names(path, module, is_package):
                theirs = _package(name)
                if theirs is None or theirs == own:
                    continue
                if any(p.startswith("_") for p in name.split(".")[3:]):
                    private.add(f"{path.relative_to(ROOT)}: {name}")
    assert sorted(private - PRIVATE_IMPORTS_BEING_REMOVED) == []
    assert sorted(PRIVATE_IMPORTS_BEING_REMOVED - private) == [], "gone: take it off the list"


#: What components/ takes from adapters/: reading its own arguments as lint reads a stack (validation).
COMPONENTS_FROM_ADAPTERS = {
    "shardwise.rules.adapters.stack.inventory_from_spec",
    "shardwise.rules.adapters.yamlsrc.LineDict",
}
#: Sizing the components still reach through adapters/stack.py; the capacity model's front door (capacity/) is
#: where a component sizes a replica. The lead empties this after merging that work; never add to it.
SIZING_THROUGH_ADAPTERS = {
    "components/_workload.py: shardwise.rules.adapters.stack.workload_sizing",
    "components/environment.py: shardwise.rules.adapters.stack.sizing_summary",
}


def test_components_do_not_size_through_the_adapters():
    reaching = set()
    for path, module, is_package, _ in _modules("components"):
        for name, _line in _imported_names(path, module, is_package):
            if _package(name) == "adapters" and name not in COMPONENTS_FROM_ADAPTERS:
                reaching.add(f"{path.relative_to(ROOT)}: {name}")
    assert sorted(reaching - SIZING_THROUGH_ADAPTERS) == []
    assert sorted(SIZING_THROUGH_ADAPTERS - reaching) == [], "gone: take it off the list"



#: The imports of shardwise modules made inside a function outside app/ (the front ends, where lazy imports keep
#: the start-up short): each loads what only some inputs need, so a run over plain manifests never imports it.
#: Elsewhere an import inside a function hides an arrow of the floor plan. Never add to it without that reason.
LOCAL_IMPORTS_FOR_START_UP = {
    "rules/adapters/__init__.py: shardwise.rules.adapters.charts",  # only a chart or kustomization named
    "rules/adapters/__init__.py: shardwise.rules.adapters.gitops",  # only a run that read a GitOps object
    "rules/adapters/__init__.py: shardwise.rules.adapters.found",  # only a lint that met a chart or kustomization
    "rules/adapters/__init__.py: shardwise.rules.adapters.namedvalues",  # only a run with a helmfile or GitOps object
    "rules/adapters/namedvalues.py: shardwise.rules.adapters.gitops",  # only where a GitOps object may name values
    "rules/adapters/gitops.py: shardwise.rules.adapters.charts",  # only when a GitOps object is rendered
    "rules/adapters/gitops.py: shardwise.rules.adapters.k8s.helmrelease",  # only a Helm-repository chart's why
    "rules/adapters/__init__.py: shardwise.rules.engine.forked",  # only a read shared over processes
    "rules/adapters/kinds.py: shardwise.rules.adapters.pulumi",  # only a JSON file
    "rules/adapters/k8s/unread.py: shardwise.rules.adapters.k8s.mentions",  # only an object that gave no workload
    "rules/adapters/k8s/configjoin.py: shardwise.rules.adapters.k8s.inventory",  # it imports configjoin (a cycle)
    "rules/adapters/k8s/nodes.py: shardwise.rules.adapters.k8s.kserve",  # only inputs with objects to join (cross_refs)
    "rules/adapters/k8s/nodes.py: shardwise.rules.adapters.k8s.ome",  # only inputs that hold OME objects
    "rules/adapters/k8s/nodes.py: shardwise.rules.adapters.k8s.operators",  # only inputs that hold Arks objects
    "rules/adapters/k8s/nodes.py: shardwise.rules.adapters.k8s.hwprofiles",  # only inputs with HardwareProfiles
    "rules/adapters/k8s/nodes.py: shardwise.rules.adapters.k8s.limitranges",  # only inputs with LimitRanges
    "rules/adapters/k8s/nodes.py: shardwise.rules.adapters.k8s.gateway",  # only inputs with Gateway API objects
    "rules/adapters/k8s/nodes.py: shardwise.rules.adapters.k8s.workloads",  # only inputs with a Rollout's workloadRef
    "rules/adapters/k8s/parse.py: shardwise.rules.adapters.k8s.workloads",  # only a name written as a number (a cycle)
    "rules/adapters/k8s/kserve.py: shardwise.rules.adapters.k8s.gateway",  # only an LLMInferenceService's route
    "rules/adapters/k8s/psoperator.py: shardwise.rules.adapters.k8s.workloads",  # it imports the router reader (a cycle)
    "rules/adapters/k8s/psoperator.py: shardwise.rules.adapters.k8s.autoscaling",  # only an autoscaled VLLMRuntime
    "rules/adapters/pulumi/k8s.py: shardwise.rules.adapters.k8s.autoscaling",  # only an autoscaler holding an unknown
    "rules/adapters/pulumi/k8s.py: shardwise.rules.adapters.k8s.mentions",  # only a Helm release (SW005's words)
    "rules/adapters/overlays.py: shardwise.rules.adapters.charts",  # only a base two overlays reach (a copy per overlay)
    "rules/adapters/load.py: shardwise.rules.adapters.ocirecipe",  # only a JSON file that may be an OCI recipe
    "rules/adapters/__init__.py: shardwise.rules.adapters.jsonsrc",  # parse_json, only when asked for
    "rules/adapters/__init__.py: shardwise.rules.adapters.overlays",  # only a run that met a kustomization unbuilt
    "rules/adapters/__init__.py: shardwise.rules.adapters.generated",  # only an unbuilt kustomization's ConfigMap read
    "rules/adapters/__init__.py: shardwise.rules.adapters.units",  # only a run whose inputs hold pools and workloads
    "rules/adapters/__init__.py: shardwise.rules.adapters.k8s.workloads",  # only inputs that write an envsubst ${VAR}
    "rules/adapters/load.py: shardwise.rules.adapters.jsonsrc",  # only a text that may be JSON
    "rules/adapters/load.py: shardwise.rules.adapters.k8s",  # each reader only for its kind of input
    "rules/adapters/load.py: shardwise.rules.adapters.k8s.modelservice",  # only YAML that is no Kubernetes object
    "rules/adapters/load.py: shardwise.rules.adapters.cndi",  # only YAML that is no object and says cluster_manifests
    "rules/adapters/load.py: shardwise.rules.adapters.k8s.inventory",  # only a chart's values read as what it renders
    "rules/adapters/load.py: shardwise.rules.adapters.k8s.helmrelease",  # only a chart's values with an input error
    "rules/adapters/load.py: shardwise.rules.adapters.shell",  # only a shell script (adapters.shellname tells)
    "rules/adapters/load.py: shardwise.rules.adapters.pulumi",
    "rules/adapters/load.py: shardwise.rules.adapters.stack",
    "rules/adapters/select.py: shardwise.rules.adapters.globs",  # only where there are exclude patterns
    "rules/adapters/select.py: shardwise.rules.adapters.programs",  # only a program source or a Compose file
    "rules/adapters/select.py: shardwise.rules.adapters.yamlsrc",  # only a folder holding a chainsaw-test.yaml
    "rules/adapters/load.py: shardwise.rules.vllm.args",  # only a Terraform file that starts no vLLM server
    "rules/adapters/load.py: shardwise.rules.adapters.programs",  # only a program source, Dockerfile, project or Compose file
    "rules/adapters/programs.py: shardwise.rules.adapters.shell",  # only a program line that may start vLLM
    "rules/checks/index.py: shardwise.rules.checks.registry",  # every rule's metadata, only for SARIF and Markdown
    "rules/checks/index.py: shardwise.rules.engine.rule",  # NotRunning, only once rules are made (SW001 reads codes)
    "rules/checks/index.py: shardwise.rules.capacity.group",  # per_group, once the sources are wired (lintspeed24)
    "rules/checks/sw301.py: shardwise.rules.capacity.group",  # the release, only for a NIXL group at TP above 1 (mend24)
    "rules/adapters/yamlsrc.py: shardwise.rules._yamlfast",  # the compiled reader, where it is built
    "rules/adapters/yamlsrc.py: shardwise.rules.adapters.yamlpy",  # PyYAML, only for what the compiled reader leaves
    "rules/report/summary.py: shardwise.rules.capacity.cost",  # only a report that holds the workload summaries
    "rules/report/summary.py: shardwise.rules.report.json_",  # only a worker process's summary texts (--jobs 2)
    "rules/report/__init__.py: shardwise.rules.report.summary",  # its re-exports, on their first use
    "rules/report/result.py: shardwise.rules.report.summary",  # only a report that holds the workload summaries
    "rules/catalog/__init__.py: shardwise.rules.catalog.hfconfig",  # its re-exports, on their first use
    "rules/catalog/resolve.py: shardwise.rules.catalog.hfconfig",  # only a config.json to read
    "rules/catalog/hfconfig.py: shardwise.rules.vllm.kv_layout",  # only a config.json that shares top-k (GLM-5.2)
    "rules/capacity/weights.py: shardwise.rules.catalog.hfconfig",  # only a quantised checkpoint or Nemotron-H
    "rules/capacity/sizing.py: shardwise.rules.capacity.seeds",  # its re-exports, on their first use (no lint)
    "rules/capacity/group.py: shardwise.rules.capacity.encoder",  # only an encoder-only embedder's config.json
}


def test_imports_inside_functions_outside_the_front_ends_are_the_listed_ones():
    inside = set()
    for path, module, is_package, parts in _modules("rules"):
        if parts[:1] == ("app",) or path == ROOT / "rules" / "__main__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            base = module.split(".") if is_package else module.split(".")[:-1]
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and node.level:
                    target = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
                    subs = [f"{target}.{a.name}" for a in node.names]
                    inside.update(f"{path.relative_to(ROOT)}: {s if _is_module(s) else target}" for s in subs)
                elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("shardwise"):
                    inside.add(f"{path.relative_to(ROOT)}: {node.module}")
                elif isinstance(node, ast.Import):
                    inside.update(f"{path.relative_to(ROOT)}: {a.name}" for a in node.names
                                  if a.name.startswith("shardwise"))
    assert sorted(inside - LOCAL_IMPORTS_FOR_START_UP) == []
    assert sorted(LOCAL_IMPORTS_FOR_START_UP - inside) == [], "gone: take it off the list"

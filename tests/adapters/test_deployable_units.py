"""A pool places only the workloads of its own deployable unit (rules/adapters/units.py).

Linting several unrelated repositories or folders in one run, a pod without a selector was sized on another
repository's NodePool of the same maker (place13's one-run stress lint of the wide corpus). The unit of a file: its
Pulumi stack, else its git work tree, else the folder of the command line it was found under; files named on their
own go together.
"""

from __future__ import annotations

import pathlib

from shardwise.rules.adapters import read_inputs

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge]}
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: serving}
spec:
  replicas: 2
  selector: {matchLabels: {app: llm}}
  template:
    metadata: {labels: {app: llm}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [meta-llama/Llama-3.1-8B-Instruct]
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def _two_folders(root: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    a, b = root / "platform", root / "team-app"
    a.mkdir()
    b.mkdir()
    (a / "nodepool.yaml").write_text(NODEPOOL, encoding="utf-8")
    (b / "vllm.yaml").write_text(DEPLOYMENT, encoding="utf-8")
    return a, b


def _pool(paths: list[pathlib.Path]) -> str | None:
    inv = read_inputs([str(p) for p in paths], jobs=1)
    [g] = inv.groups
    return g.pool.name if g.pool is not None else None


def test_two_folders_outside_git_are_two_units(tmp_path):
    """Two folders named outside any git work tree: the workload has no pool (it had g5.xlarge's A10G); the folder
    that holds both is one unit."""
    a, b = _two_folders(tmp_path)
    assert _pool([a, b]) is None
    assert _pool([tmp_path]) == "gpu"


def test_the_folders_of_one_repository_are_one_unit(tmp_path):
    """Inside one git work tree (``.git`` a directory, or a file for a worktree or submodule) the folders named
    are one repository's: its NodePool places its workloads."""
    a, b = _two_folders(tmp_path)
    (tmp_path / ".git").mkdir()
    assert _pool([a, b]) == "gpu"


def test_two_repositories_are_two_units(tmp_path):
    """Each folder its own git work tree (two checkouts side by side, or a submodule): two units, also when their
    common folder is named."""
    a, b = _two_folders(tmp_path)
    (a / ".git").mkdir()
    (b / ".git").write_text("gitdir: ../.git/modules/team-app\n", encoding="utf-8")
    assert _pool([a, b]) is None
    assert _pool([tmp_path]) is None


def test_a_file_named_on_its_own_is_of_every_unit(tmp_path):
    """A file named on its own was put beside the rest on purpose, whatever repository it is in: its pool places the
    workloads of a folder named beside it, and of another file named."""
    a, b = _two_folders(tmp_path)
    (b / ".git").mkdir()
    assert _pool([a / "nodepool.yaml", b / "vllm.yaml"]) == "gpu"
    assert _pool([a / "nodepool.yaml", b]) == "gpu"
    assert _pool([a, b / "vllm.yaml"]) == "gpu"


def test_sw206_names_the_pools_of_other_units_as_not_placing_it(tmp_path):
    """SW206 said "pools: none declared" of a workload whose selector matches no pool when another unit of the run
    declares pools (place16): it says none is in its unit and how many other units declare, which do not place it."""
    from shardwise.rules.checks.registry import ALL_RULES
    from shardwise.rules.engine import run_rules

    a, b = _two_folders(tmp_path)
    text = DEPLOYMENT.replace("    spec:\n      containers:", "    spec:\n      nodeSelector: {accelerator: nvidia}\n"
                              "      containers:")
    (b / "vllm.yaml").write_text(text, encoding="utf-8")
    inv = read_inputs([str(a), str(b)], jobs=1)
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW206"]
    assert f.message.startswith("the selector (accelerator=nvidia) matches no GPU pool (pools: none in its "
                                "deployable unit; 1 in other units of the run, which do not place its pods) and names "
                                "no GPU type,")
    inv = read_inputs([str(b)], jobs=1)
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW206"]
    assert "(pools: none declared)" in f.message


def test_the_innermost_folder_named_outside_git_is_the_unit(tmp_path):
    """Outside git, a folder named inside another named folder is a unit of its own (the longest that holds the
    file, links followed; lintspeed17 looks the folders up once a run, and only for files no repository decides);
    inside a repository the folders named do not split it."""
    a, b = _two_folders(tmp_path)
    assert _pool([tmp_path, b]) is None
    assert _pool([b, tmp_path]) is None
    assert _pool([tmp_path, a]) is None
    (tmp_path / ".git").mkdir()
    assert _pool([tmp_path, b]) == "gpu"


def test_a_files_real_path_from_its_folders_is_realpath_s(tmp_path):
    """``units.real_path`` (lintspeed23: a folder's real path made once, each file's name joined to it where the name
    is no link) is :func:`os.path.realpath` of every path of a tree with links: to folders and files, relative and
    absolute, chained, dangling, looping, a link to a folder's parent, and a file that does not exist."""
    import os

    from shardwise.rules.adapters.units import real_path

    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    for name in ("a.yaml", "sub/b.yaml"):
        (real / name).write_text("kind: x\n")
    (tmp_path / "dirlink").symlink_to(real)  # absolute
    (tmp_path / "rel").symlink_to("real/sub")  # relative
    (tmp_path / "chain").symlink_to("dirlink")
    (real / "filelink.yaml").symlink_to("sub/b.yaml")
    (real / "sub" / "up").symlink_to("..")
    (real / "dangling.yaml").symlink_to("nowhere/x.yaml")
    (real / "loop1").symlink_to("loop2")
    (real / "loop2").symlink_to("loop1")
    paths = [os.path.join(root, name) for root, dirs, files in os.walk(tmp_path) for name in (*dirs, *files)]
    paths += [f"{d}/{name}" for d in (tmp_path / "dirlink", tmp_path / "chain", tmp_path / "rel", real / "sub" / "up",
                                      tmp_path / "chain" / "sub" / "up")
              for name in ("a.yaml", "b.yaml", "filelink.yaml", "dangling.yaml", "loop1", "missing.yaml", "sub")]
    real_dirs: dict[str, str] = {}
    for _ in range(2):  # the second time with every folder's real path kept
        for p in paths:
            full = os.path.abspath(p)
            assert real_path(full, real_dirs) == os.path.realpath(full), p
    assert len(paths) > 40 and len(real_dirs) >= 8

"""Every rule, every field it reads, unknown at ``pulumi preview``: the rule says it cannot decide, or the table says why
it does not read that field.

DESIGN.md, "Unknown, and what is not": an unknown is never a silent pass and never read as a default. Undecided
capacity and topology findings are advisory by default; an unknown in the field that decides a security rule is
mandatory (fail closed). For each :class:`Row` a value at one path of the preview of
:func:`test_pulumi_security_sweep.preview` (made whole: /dev/shm on the LeaderWorkerSet's pods, probes on the
Deployment's container, so that the baseline blocks on nothing) makes ``rule`` report; then that path, and each path
above it down to ``top`` (its parent object, the list that holds the entry...), set to the engine's unknown sentinel
must make the same rule say so: blocking (``mandatory``: "cannot decide" or the finding itself) or a "cannot decide"
note (``advisory``), in ``shardwise lint`` of the preview file and in the policy pack's analysis of the same
resources. The security rules' own fields are swept by ``test_pulumi_security_sweep.py``; the rules and fields this
table leaves out are in :data:`ELSEWHERE` and :data:`NOT_READ`, each with the reason.

A whole container, container list, pod spec or pod template not known is reported once per level, as a workload that
cannot be checked: a blocking finding naming the security rules it holds back (they fail closed), and an advisory
note naming the launch, capacity and topology rules it holds back (SW003, SW203-SW205, SW207, SW209, SW401, SW402,
with SW307/SW311/SW312): the rows whose ``top`` reaches the pod template (2 or 3) check it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pulumi_preview import U, lint_document
from shardwise.rules.adapters.pulumi import PulumiResource, inventory_from_resources, resources_from_json
from shardwise.rules.app import crossguard
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.checks.sw402 import download_mode
from shardwise.rules.model import UNKNOWN
from test_pulumi_security_sweep import C0, DEP, LEADER_C0, LWS, NAMES, NODEPOOL, NOTED_CASES, SVC
from test_pulumi_security_sweep import CASES as SECURITY_CASES
from test_pulumi_security_sweep import preview as sweep_preview

Path_ = tuple[Any, ...]
POD = ("spec", "template", "spec")
LPOD = ("spec", "leaderWorkerTemplate", "leaderTemplate", "spec")
WPOD = ("spec", "leaderWorkerTemplate", "workerTemplate", "spec")
WORKER_C0 = (*WPOD, "containers", 0)
REQ = ("spec", "template", "spec", "requirements")
SHM_VOLUMES = [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}]
SHM_MOUNTS = [{"name": "shm", "mountPath": "/dev/shm"}]
HEALTH = {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10}
DEV_MODE = "VLLM_SERVER_DEV_MODE"


def _set(doc: dict[str, Any], res: int, path: Path_, value: Any) -> None:
    node: Any = doc["steps"][res]["newState"]["inputs"]
    for key in path[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
    if isinstance(path[-1], int) and path[-1] == len(node):
        node.append(None)  # one more word of a command line
    node[path[-1]] = copy.deepcopy(value)


def preview() -> dict[str, Any]:
    """The security sweep's preview, made to block on nothing: /dev/shm on the multi-node group's pods (SW401),
    startup, liveness and readiness probes on the Deployment's container (SW402, SW407)."""
    doc = sweep_preview()
    for pod, container in ((LPOD, LEADER_C0), (WPOD, WORKER_C0)):
        _set(doc, LWS, (*pod, "volumes"), SHM_VOLUMES)
        _set(doc, LWS, (*container, "volumeMounts"), SHM_MOUNTS)
    _set(doc, DEP, (*C0, "readinessProbe"), HEALTH)
    _set(doc, DEP, (*C0, "startupProbe"), {**HEALTH, "failureThreshold": 60})
    _set(doc, DEP, (*C0, "livenessProbe"), {**HEALTH, "failureThreshold": 3})
    return doc


@dataclass(frozen=True)
class Row:
    rule: str
    res: int
    path: Path_
    bad: Any  # a value at path that makes `rule` report at `bad_level`
    unknown: str  # what the unknown gives: "mandatory" (the rule blocks) or "advisory" ("cannot decide", a note)
    top: int = 1  # the shortest path above `path` that is still checked
    pre: tuple[tuple[Path_, Any], ...] = ()  # edits of the same resource first (the case's context)
    bad_level: str = "mandatory"

    @property
    def paths(self) -> list[Path_]:
        return [self.path[:n] for n in range(len(self.path), self.top - 1, -1)]

    @property
    def id(self) -> str:
        return f"{NAMES[self.res]}:{self.rule}:{'.'.join(map(str, self.path))}"

    def doc(self, path: Path_ | None = None, value: Any = None) -> dict[str, Any]:
        doc = preview()
        for at, v in self.pre:
            _set(doc, self.res, at, v)
        if path is not None:
            _set(doc, self.res, path, value)
        return doc


ROWS = [
    # --- security: an unknown blocks (fail closed) ---------------------------------------------------------------
    Row("SW309", DEP, (*POD, "hostPID"), True, "mandatory"),
    Row("SW309", DEP, (*C0, "securityContext", "capabilities", "add", 0), "SYS_ADMIN", "mandatory",
        pre=(((*C0, "securityContext"), {"capabilities": {"add": ["NET_BIND_SERVICE"]}}),)),
    # an advisory part of SW309: its unknown is a note (and the pod spec above it blocks on the mandatory parts)
    Row("SW309", DEP, (*POD, "hostIPC"), True, "advisory", top=len(POD) + 1, bad_level="advisory"),
    # a LoadBalancer that selects other pods: the selector not known may select vLLM's
    Row("SW306", SVC, ("spec", "selector", "app"), "llama", "mandatory",
        pre=((("spec", "type"), "LoadBalancer"), (("spec", "selector"), {"app": "other"}))),
    # an entry's name not known may be the variable an entry before it sets: it overrides it
    Row("SW306", DEP, (*C0, "env", 0, "name"), DEV_MODE, "mandatory", pre=(((*C0, "env", 0), {"name": "X", "value": "1"}),)),
    Row("SW310", DEP, (*C0, "env", 1, "name"), "NVIDIA_VISIBLE_DEVICES", "mandatory",
        pre=(((*C0, "env", 1, "value"), "all"),)),
    # --- /dev/shm of a multi-node group: mandatory when sure; an unknown mount or volume is a "cannot decide" note
    # (SW401 is safe_to_skip_unknown, as SW402's probes: a missing /dev/shm is found at the first start, no hole);
    # blocking before, with a false reason ("mounts nothing at /dev/shm", "without medium: Memory")
    Row("SW401", LWS, (*LEADER_C0, "volumeMounts", 0, "mountPath"), "/data", "advisory", top=3),
    Row("SW401", LWS, (*LEADER_C0, "volumeMounts", 0, "name"), "other", "advisory", top=len(LEADER_C0) + 1),
    Row("SW401", LWS, (*LPOD, "volumes", 0, "emptyDir", "medium"), "", "advisory", top=len(LPOD) + 1),
    Row("SW401", LWS, (*LPOD, "volumes", 0, "name"), "other", "advisory", top=len(LPOD) + 1),
    # --- capacity, topology, launch: an unknown is a "cannot decide" note -----------------------------------------
    Row("SW203", LWS, (*LEADER_C0, "args", 2), "3", "advisory", top=3),
    Row("SW205", LWS, (*LEADER_C0, "args", 2), "8", "advisory", top=3,
        pre=(((*LEADER_C0, "args", 4), "1"),)),
    Row("SW207", DEP, (*C0, "args", 3), "--enable-expert-parallel", "advisory", top=2),
    # a word not known where a flag may stand may be one vLLM refuses (silent before); a flag's value is no flag
    Row("SW003", DEP, (*C0, "args", 3), "--no-such-flag", "advisory", top=len(C0) + 1),
    # the leader's own GPU request not known: never its workers' count (silent before: resources, limits)
    Row("SW204", LWS, (*LEADER_C0, "resources", "limits", "nvidia.com/gpu"), 2, "advisory", top=3),
    Row("SW204", DEP, (*C0, "resources", "limits", "nvidia.com/gpu"), 1, "advisory", top=len(C0) + 1,
        pre=(((*C0, "args"), ["meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "2"]),
             ((*POD, "volumes"), SHM_VOLUMES), ((*C0, "volumeMounts"), SHM_MOUNTS),
             ((*C0, "resources", "limits", "nvidia.com/gpu"), 2))),
    Row("SW204", LWS, ("spec", "leaderWorkerTemplate", "size"), 1, "advisory", top=3),
    # a NodePool's instance types not known: never "the pool names no GPU" (silent on SW201 before, from a value of
    # the requirement up to the whole NodePool spec)
    Row("SW201", NODEPOOL, (*REQ, 0, "values", 0), "g5.xlarge", "advisory"),
    Row("SW206", DEP, (*POD, "nodeSelector", "karpenter.sh/nodepool"), "cpu", "advisory", top=len(POD) + 1,
        bad_level="advisory"),
    # an image not known may be any platform's build (silent before)
    Row("SW209", DEP, (*C0, "image"), "rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521", "advisory", top=2),
    # a whole probe not known: never read as no probe (silent before with no startup probe; read as none before)
    Row("SW402", DEP, (*C0, "startupProbe", "failureThreshold"), 1, "advisory", top=2),
    Row("SW402", DEP, (*C0, "livenessProbe", "failureThreshold"), 3, "advisory", top=len(C0) + 1,
        pre=(((*C0, "startupProbe"), None), ((*C0, "livenessProbe", "failureThreshold"), 300))),
    Row("SW405", LWS, ("spec", "leaderWorkerTemplate", "restartPolicy"), "None", "advisory", top=3,
        bad_level="advisory"),
    Row("SW408", DEP, (*C0, "env", 1, "value"), "DEBUG", "advisory", top=len(C0) + 1, bad_level="advisory"),
]
SWEEP = [(r, p) for r in ROWS for p in r.paths]

#: Rules (or parts of rules) whose unknowns another suite checks.
ELSEWHERE = {
    **{c.code: "test_pulumi_security_sweep.py: its CASES (blocking) and NOTED_CASES (advisory notes)"
       for c in (*SECURITY_CASES, *NOTED_CASES)},
    "SW101": "held back with tensor_parallel_size, the model or the pool's GPU memory (the SW203, SW201 rows)",
    "SW102": "held back with tensor_parallel_size, the model or the pool's GPU memory (the SW203, SW201 rows)",
    "SW104": "held back with tensor_parallel_size, the model or the pool's GPU memory (the SW203, SW201 rows)",
    "SW106": "held back with the model or the pool's GPU memory (the SW201 row)",
    "SW105": "held back with gpu_memory_utilization: a word of the command line not known (the SW207 row)",
    "SW202": "held back with tensor_parallel_size (the SW203 row): which GPUs join the group",
    "SW208": "the fields of SW204: its rows",
    "SW004": "an unknown model is held back in SW101's note (the SW203 row's args)",
}
#: Rules that read no field a preview leaves unknown, or read it so that an unknown changes nothing; and what is left.
NOT_READ = {
    "SW001": "reads suppressions: an annotation not known suppresses no finding, so every finding stays",
    "SW002": "an unknown word is read as an unresolved reference, never as a command it cannot read",
    "SW005": "reads what an object mentions, not values; an unknown workload part is reported as not checked",
    "SW103": "reads the declared load (stack configuration), not the preview",
    "SW404": "reads the production flag of the stack configuration and the replica count (UNKNOWN, "
             "test_pulumi_unknowns.py)",
    "SW407": "reads only whether a readiness probe is written: an unknown probe is written",
    # left (see the report): known gaps, each a class of its own
    "SW403": "LEFT: an autoscaler's unknown metrics (no autoscaler in this preview)",
    "SW406": "LEFT: a router's unknown routing policy (no router in this preview)",
}


def _blocking(findings: list[dict[str, Any]]) -> set[str]:
    return {c for f in findings if f["level"] == "mandatory" and not f["suppressed"] for c in f["codes"]}


def _undecided(findings: list[dict[str, Any]], rule: str) -> list[str]:
    """The levels of the "cannot decide" findings that hold ``rule`` back."""
    return [f["level"] for f in findings if rule in f["codes"] and f["message"].startswith(f"{f['code']}: cannot decide")]


def _pack(doc: dict[str, Any], rule: str) -> list[str]:
    """The messages of ``rule`` in the pack's stack and resource analyses of the preview's resources: its policy's
    violations, and the notes its advisory findings go to where the policy is mandatory (crossguard's module doc)."""
    resources = resources_from_json(doc, "p.json")
    context = crossguard.StackContext()
    [policy] = [r for r in ALL_RULES if r.meta.code == rule]
    out: list[str] = []
    for analysis in [crossguard.stack_analysis(resources, context),
                     *(crossguard.resource_analysis(r, context) for r in resources)]:
        if policy.meta.scope == analysis.scope:
            out.extend(r.message for r in analysis.check(policy, None, context))
            out.extend(r.message for r in analysis.notes)
        assert analysis.internal == [], analysis.internal
    return out


def test_every_rule_is_in_the_table_or_says_why_not() -> None:
    codes = {r.meta.code for r in ALL_RULES}
    rows = {r.rule for r in ROWS}
    assert codes - rows - set(ELSEWHERE) - set(NOT_READ) == set()
    assert set(NOT_READ) & (rows | set(ELSEWHERE)) == set()
    assert (len(ROWS), len(SWEEP)) == (24, 107)


def test_the_baseline_reports_nothing_the_rows_check(tmp_path: Path) -> None:
    code, errors, findings = lint_document(tmp_path, preview())
    assert (code, errors) == (0, "")
    assert [(f["codes"], f["level"]) for f in findings] == [(["SW306"], "advisory"), (["SW205"], "advisory")]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_the_value_reports(tmp_path: Path, row: Row) -> None:
    code, errors, findings = lint_document(tmp_path, row.doc())
    assert errors == "" and row.rule not in _blocking(findings) and _undecided(findings, row.rule) == []
    code, errors, findings = lint_document(tmp_path, row.doc(row.path, row.bad))
    assert errors == ""
    assert row.bad_level in {f["level"] for f in findings if row.rule in f["codes"]}, findings


@pytest.mark.slow  # a sweep over every row and path: in make test, not in the edit loop (make test-fast)
@pytest.mark.parametrize(("row", "path"), SWEEP, ids=[f"{r.id}@{'.'.join(map(str, p))}" for r, p in SWEEP])
def test_the_unknown_says_the_rule_cannot_decide(tmp_path: Path, row: Row, path: Path_) -> None:
    doc = row.doc(path, U)
    code, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    if row.unknown == "mandatory":
        assert code == 1 and row.rule in _blocking(findings), findings
    else:
        assert "advisory" in _undecided(findings, row.rule), findings
    said = [m for m in _pack(doc, row.rule) if m.startswith(row.rule)]
    assert said if row.unknown == "mandatory" else [m for m in said if m.startswith(f"{row.rule}: cannot decide")], \
        row.rule


@pytest.mark.parametrize(("values", "kinds"), [
    ([U], [("gpu", UNKNOWN, UNKNOWN, None)]),
    (["p4d.24xlarge", U], [("gpu/p4d.24xlarge", "p4d.24xlarge", 8, "gpu"), ("gpu/<unknown>", UNKNOWN, UNKNOWN, "gpu")]),
    (["p4d.24xlarge", "p5.48xlarge", U], [("gpu/p4d.24xlarge", "p4d.24xlarge", 8, "gpu"),
                                          ("gpu/p5.48xlarge", "p5.48xlarge", 8, "gpu"),
                                          ("gpu/<unknown>", UNKNOWN, UNKNOWN, "gpu")]),
], ids=["only", "one-known", "two-known"])
def test_an_unknown_instance_type_of_a_nodepool_is_a_kind_of_unknown_hardware(values: list[Any], kinds: list[Any]) -> None:
    """As an unknown entry of an EKS node group's ``instanceTypes`` (test_pulumi_fail_closed.py): the types not known
    are one more kind the NodePool may launch, whose GPU and GPU count are not known; before, they were dropped (the
    NodePool read as launching only the known ones, or as naming no GPU: SW206's "label the pool's nodes")."""
    step = preview()["steps"][NODEPOOL]["newState"]
    step["inputs"]["spec"]["template"]["spec"]["requirements"][0]["values"] = values
    res = PulumiResource(step["type"], "gpu", step["urn"], step["inputs"])
    assert [(p.name, p.instance_type, p.gpus_per_node, p.variant_of) for p in inventory_from_resources([res]).pools] \
        == kinds


def test_an_unknown_requirement_on_another_label_leaves_the_instance_types_known() -> None:
    step = preview()["steps"][NODEPOOL]["newState"]
    step["inputs"]["spec"]["template"]["spec"]["requirements"].append(
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": [U]})
    res = PulumiResource(step["type"], "gpu", step["urn"], step["inputs"])
    assert [(p.name, p.instance_type, p.gpus_per_node) for p in inventory_from_resources([res]).pools] == [
        ("gpu", "p4d.24xlarge", 8)]


_UNDECIDED_TAIL = " is not known (a computed value or an unresolved reference): lint the `pulumi up` state, or write " \
    "the value as a literal"


@pytest.mark.parametrize(("path", "unknown"), [
    ((*LEADER_C0, "volumeMounts", 0, "mountPath"), "the mount path of volume `shm` in container `vllm`"),
    ((*LEADER_C0, "volumeMounts", 0), "the mount path of a volume in container `vllm`"),
    ((*LEADER_C0, "volumeMounts"), "the mount path of a volume in container `vllm`"),
    ((*LEADER_C0, "volumeMounts", 0, "name"), "the volume container `vllm` mounts at /dev/shm"),
    ((*LPOD, "volumes", 0, "emptyDir", "medium"), "the medium of volume `shm`"),
    ((*LPOD, "volumes", 0, "emptyDir"), "the medium of volume `shm`"),
    ((*LPOD, "volumes", 0, "name"), "a volume of the pod (it may define `shm`)"),
    ((*LPOD, "volumes"), "a volume of the pod (it may define `shm`)"),
], ids=lambda v: ".".join(map(str, v)) if isinstance(v, tuple) else None)
def test_an_unknown_shm_mount_or_volume_is_never_read_as_absent(tmp_path: Path, path: Path_, unknown: str) -> None:
    """SW401 blocked before with a false reason ("mounts nothing at /dev/shm", "emptyDir `shm` without medium:
    Memory", "volume `shm`, which the pod does not define"): now one advisory "cannot decide" note (SW401 is
    safe_to_skip_unknown, as SW402's probes), and the run does not block."""
    doc = preview()
    _set(doc, LWS, path, U)
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (0, "")
    assert [(f["codes"], f["level"], f["message"]) for f in findings if "SW401" in f["codes"]] == [
        (["SW401"], "advisory", f"SW401: cannot decide: {unknown}{_UNDECIDED_TAIL}")]


@pytest.mark.parametrize(("empty_dir", "said"), [
    ({"medium": "Memory", "sizeLimit": U}, []),
    ({"sizeLimit": U}, [(["SW401"], "mandatory", "SW401: container `vllm` runs a multi-node group of 2 pods (TP4×PP2) "
                        "with emptyDir `shm` without medium: Memory (node disk) at /dev/shm, not an emptyDir with "
                        "medium: Memory; set medium: Memory on emptyDir `shm`")]),
], ids=["memory", "disk"])
def test_an_unknown_size_limit_leaves_the_medium_written(
        tmp_path: Path, empty_dir: dict[str, Any], said: list[Any]) -> None:
    """An emptyDir's ``sizeLimit`` not known at preview (a size computed in the program) says nothing of its medium,
    which SW401 reads and the program wrote: ``medium: Memory`` passes, no medium (node disk) blocks (review25: any
    field of the emptyDir made its medium unknown, a "cannot decide" note that named the medium written)."""
    doc = preview()
    _set(doc, LWS, (*LPOD, "volumes", 0), {"name": "shm", "emptyDir": empty_dir})
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (1 if said else 0, "")
    assert [(f["codes"], f["level"], f["message"]) for f in findings if "SW401" in f["codes"]] == said


@pytest.mark.parametrize(("mounts", "mode"), [
    (["/root/.cache/huggingface"], "cached"), (["/data"], "every start"), ([U], "possible"),
    ([U, "/root/.cache/huggingface"], "cached"), (["/root/.cache/huggingface", U], "cached"), ([U, "/data"], "possible"),
], ids=["cache", "elsewhere", "unknown", "unknown-then-cache", "cache-then-unknown", "unknown-then-elsewhere"])
def test_an_unknown_mount_path_may_be_the_model_cache(mounts: list[Any], mode: str) -> None:
    """SW402's start-up estimate: a mount path not known at preview may be where the weights are kept, or not
    (before, the path left out read as empty, a mount of ``/``: "cached", sure). Another mount known to hold the cache
    keeps it whatever the unknown one is, in either order (review25: the first unknown path answered "possible", so an
    unknown mount written before the cache's made SW402 add a download it knew does not happen)."""
    doc = preview()
    _set(doc, DEP, (*POD, "volumes"), [{"name": f"v{i}", "emptyDir": {}} for i in range(len(mounts))])
    _set(doc, DEP, (*C0, "volumeMounts"), [{"name": f"v{i}", "mountPath": m} for i, m in enumerate(mounts)])
    resources = [r for r in resources_from_json(doc, "p.json") if r.type.endswith(":Deployment")]
    [g] = inventory_from_resources(resources).groups
    assert download_mode(g, g.main_container) == mode


_AT_PREVIEW = "(a computed value at preview; lint the `pulumi up` state, or write the value as a literal)"


@pytest.mark.parametrize(("path", "word"), [
    ((*C0, "args", 3), "word 3 of its args (spec.template.spec.containers[0].args[3])"),
    ((*C0, "args", 1), "word 1 of its args (spec.template.spec.containers[0].args[1])"),
    ((*C0, "args"), "its args (spec.template.spec.containers[0].args)"),
    ((*C0, "args", 2), None),  # the value of --max-model-len: never a flag
], ids=["appended", "after-the-model", "whole-list", "value-of-a-flag"])
def test_an_unknown_word_where_a_flag_may_stand_cannot_be_decided_by_sw003(
        tmp_path: Path, path: Path_, word: str | None) -> None:
    """The Deployment runs ``vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192``: an unknown word
    after the model or appended may be a flag vLLM refuses (an advisory note naming its index, as every undecided
    launch finding; ``unknown = "fail"`` makes it block); the one in --max-model-len's value is a value."""
    doc = preview()
    _set(doc, DEP, path, U)
    code, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    said = [(f["codes"], f["level"], f["message"]) for f in findings if "SW003" in f["codes"]]
    assert said == ([] if word is None else [(["SW003"], "advisory", "SW003: cannot decide: whether vLLM accepts its "
                                              f"command line: {word} is not known, and may be a flag vLLM refuses "
                                              f"{_AT_PREVIEW}")])


def test_an_unknown_word_after_a_served_name_may_be_a_flag(tmp_path: Path) -> None:
    """``--served-model-name llama <unknown>``: a flag of one or more values ends at the first flag, so the word after
    the first name may be a flag (``--tensor-parallel-size=2`` on a pod of two GPUs): SW003 cannot decide, and the
    layout is unknown, never vLLM's default (review25: read as a second name, TP1, and SW208 said one GPU idles)."""
    doc = preview()
    _set(doc, DEP, (*C0, "args"), ["meta-llama/Llama-3.1-8B-Instruct", "--served-model-name", "llama", U])
    _set(doc, DEP, (*C0, "resources"), {"limits": {"nvidia.com/gpu": 2}})
    code, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    on_it = [(f["codes"][0], f["level"], f["undecided"]) for f in findings if f["subject"] == "Deployment serving/llama"]
    # every finding on it says it cannot decide: SW308 fails closed on the word (a security rule), the others note it
    assert on_it == [("SW003", "advisory", True), ("SW101", "advisory", True), ("SW105", "advisory", True),
                     ("SW207", "advisory", True), ("SW308", "mandatory", True)]
    [tp] = [f["message"] for f in findings if f["codes"][0] == "SW101"]
    assert tp.startswith("SW101: cannot decide: tensor_parallel_size is not known")

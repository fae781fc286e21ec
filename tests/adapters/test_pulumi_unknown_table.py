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
note naming every launch, capacity, topology and reliability rule that reads the pod (SW003, SW101, SW102, SW104-SW106,
SW201-SW209, SW401, SW402, SW407, SW408, with SW307/SW311/SW312): the rows whose ``top`` reaches the pod template (2
or 3) check it. SW004 and SW404 are not in it (:data:`NOT_READ` and :data:`ELSEWHERE` say why), nor SW405,
which reads the LeaderWorkerSet's restartPolicy, not its pods; SW103 is, only where the workload declares a load or
its annotations are not known (test_pulumi_held_back_load.py).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pulumi_preview import HPA_T, U, lint_document, step
from shardwise.rules.adapters.pulumi import PulumiResource, inventory_from_resources, resources_from_json
from shardwise.rules.app import crossguard
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.checks.sw402 import download_mode
from shardwise.rules.model import UNKNOWN
from test_pulumi_security_sweep import C0, DEP, ING, LEADER_C0, LWS, NODEPOOL, NOTED_CASES, SVC
from test_pulumi_security_sweep import CASES as SECURITY_CASES
from test_pulumi_security_sweep import NAMES as SWEEP_NAMES
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
ALB_ATTRS = "alb.ingress.kubernetes.io/target-group-attributes"
ALGORITHM = "load_balancing.algorithm.type"
LLAMA_8B = ["meta-llama/Llama-3.1-8B-Instruct"]
TP = [*LLAMA_8B, "--tensor-parallel-size"]
#: the Deployment's pod on two GPUs, with the /dev/shm a tensor-parallel group needs (SW401)
ON_TWO_GPUS = (((*POD, "volumes"), SHM_VOLUMES), ((*C0, "volumeMounts"), SHM_MOUNTS),
               ((*C0, "resources", "limits", "nvidia.com/gpu"), 2))
#: the Deployment's container as the security sweep writes it: no probe (SW407: the Service sends it traffic early)
BARE_CONTAINER = sweep_preview()["steps"][DEP]["newState"]["inputs"]["spec"]["template"]["spec"]["containers"][0]


def _set(doc: dict[str, Any], res: int, path: Path_, value: Any) -> None:
    node: Any = doc["steps"][res]["newState"]["inputs"]
    for key in path[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
    if isinstance(path[-1], int) and path[-1] == len(node):
        node.append(None)  # one more word of a command line
    node[path[-1]] = copy.deepcopy(value)


#: The Deployment's HorizontalPodAutoscaler (SW403), added to the sweep's preview, scaling on vLLM's queue.
HPA = len(SWEEP_NAMES)
NAMES = [*SWEEP_NAMES, "HorizontalPodAutoscaler"]
QUEUE = [{"type": "Pods", "pods": {"metric": {"name": "vllm:num_requests_waiting"},
                                   "target": {"type": "AverageValue", "averageValue": "5"}}}]
CPU = [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]


def preview() -> dict[str, Any]:
    """The security sweep's preview, made to block on nothing: /dev/shm on the multi-node group's pods (SW401),
    startup, liveness and readiness probes on the Deployment's container (SW402, SW407); and an autoscaler of the
    Deployment that scales on its queue (SW403)."""
    doc = sweep_preview()
    doc["steps"].append(step(HPA_T, "llama", {"metadata": {"name": "llama", "namespace": "serving"}, "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "llama"},
        "minReplicas": 2, "maxReplicas": 4, "metrics": copy.deepcopy(QUEUE)}}))
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
    # --api-key's value computed by the program: in the pod spec in plain text whatever it is (decided, mandatory);
    # "EMPTY", the OpenAI client's word for no key, is a placeholder (the baseline)
    Row("SW308", DEP, (*C0, "args", 2), "serving-key-1234", "mandatory", top=2,
        pre=(((*C0, "args"), [*LLAMA_8B, "--api-key", "EMPTY"]),)),
    # HF_TOKEN's plain value computed: a token's shape would block, another's not: cannot decide (silent before; the
    # entry and the paths above it are the security sweep's)
    Row("SW308", DEP, (*C0, "env", 1, "value"), "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "mandatory",
        top=len(C0) + 3, pre=(((*C0, "env", 1), {"name": "HF_TOKEN", "value": "insert-your-token-here"}),)),
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
    # a word of the command, as of the args (silent before: unknown23 read only the args)
    Row("SW003", DEP, (*C0, "command", 3), "--no-such-flag", "advisory", top=2,
        pre=(((*C0, "command"), ["vllm", "serve", *LLAMA_8B]), ((*C0, "args"), ["--max-model-len", "8192"]))),
    # capacity: a whole container, container list, pod spec or template not known names them in its note (silent
    # before: nothing said they were held back)
    Row("SW101", DEP, (*C0, "args", 0), "meta-llama/Llama-3.1-70B-Instruct", "advisory", top=2),
    Row("SW102", DEP, (*C0, "args", 2), "131072", "advisory", top=2,
        pre=(((*C0, "args"), [*LLAMA_8B, "--max-model-len", "8192", "--gpu-memory-utilization", "0.6"]),)),
    Row("SW104", DEP, (*C0, "args", 2), "2", "advisory", top=2, pre=(*ON_TWO_GPUS, ((*C0, "args"), [*TP, "1"]))),
    Row("SW105", DEP, (*C0, "args", 4), "0.99", "advisory", top=2, bad_level="advisory",
        pre=(((*C0, "args"), [*LLAMA_8B, "--max-model-len", "8192", "--gpu-memory-utilization", "0.9"]),)),
    Row("SW106", DEP, (*C0, "args", 0), "google/gemma-2-27b-it", "advisory", top=2, bad_level="advisory",
        pre=(*ON_TWO_GPUS, ((*C0, "args"), [*TP, "2"]))),
    # TP16 on nodes of 8 GPUs (advisory beside SW205's block: the TCP between the nodes is its finding)
    Row("SW201", LWS, (*LEADER_C0, "args", 2), "16", "advisory", top=3, bad_level="advisory"),
    Row("SW208", DEP, (*C0, "resources", "limits", "nvidia.com/gpu"), 2, "advisory", top=2, bad_level="advisory"),
    # SW407 reads only whether a readiness probe is written (an unknown probe is written): from the container up
    Row("SW407", DEP, C0, BARE_CONTAINER, "advisory", top=2, bad_level="advisory"),
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
    Row("SW206", DEP, (*POD, "nodeSelector", "karpenter.sh/nodepool"), "cpu", "advisory", top=2,
        bad_level="advisory"),
    # an image not known may be any platform's build (silent before)
    Row("SW209", DEP, (*C0, "image"), "rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521", "advisory", top=2),
    # a whole probe not known: never read as no probe (silent before with no startup probe; read as none before)
    Row("SW402", DEP, (*C0, "startupProbe", "failureThreshold"), 1, "advisory", top=2),
    Row("SW402", DEP, (*C0, "livenessProbe", "failureThreshold"), 3, "advisory", top=len(C0) + 1,
        pre=(((*C0, "startupProbe"), None), ((*C0, "livenessProbe", "failureThreshold"), 300))),
    # an autoscaler's metric or target not known: never the HPA's default (80 % CPU: a false "scales on cpu" before,
    # from the entry up to the whole spec), never no target (silent before)
    Row("SW403", HPA, ("spec", "metrics", 0, "pods", "metric", "name"), "DCGM_FI_DEV_GPU_UTIL", "advisory",
        bad_level="advisory"),
    Row("SW403", HPA, ("spec", "scaleTargetRef", "name"), "llama", "advisory", top=2, bad_level="advisory",
        pre=((("spec", "metrics"), CPU), (("spec", "scaleTargetRef", "name"), "other"))),
    # the ALB's balancing algorithm not known (an annotation, or the whole map): never round-robin, the controller's
    # default (a false finding before: the annotation left out), nor least-outstanding
    Row("SW406", ING, ("metadata", "annotations", ALB_ATTRS), f"{ALGORITHM}=round_robin", "advisory", top=2,
        bad_level="advisory", pre=((("metadata", "annotations"), {ALB_ATTRS: f"{ALGORITHM}=least_outstanding_requests"}),)),
    # the Ingress's class not known: it may name the ALB or ingress-nginx, both round-robin by default (silent
    # before: the class field was not read, and its unknown read as none, the cluster's default class)
    Row("SW406", ING, ("spec", "ingressClassName"), "alb", "advisory", top=2, bad_level="advisory"),
    Row("SW405", LWS, ("spec", "leaderWorkerTemplate", "restartPolicy"), "None", "advisory", top=3,
        bad_level="advisory"),
    Row("SW408", DEP, (*C0, "env", 1, "value"), "DEBUG", "advisory", top=2, bad_level="advisory"),
]
SWEEP = [(r, p) for r in ROWS for p in r.paths]

#: Rules (or parts of rules) whose unknowns another suite checks.
ELSEWHERE = {
    **{c.code: "test_pulumi_security_sweep.py: its CASES (blocking) and NOTED_CASES (advisory notes)"
       for c in (*SECURITY_CASES, *NOTED_CASES)},
    "SW202": "held back with tensor_parallel_size (the SW203 row): which GPUs join the group; a whole workload not "
             "known names it in its note (test_pulumi_security_sweep: a pool joined by PCIe only is no pool of this "
             "preview)",
    "SW004": "an unknown model is held back in SW101's note (the SW203 row's args); a workload not known is no model "
             "shardwise cannot size: SW002 says it is not checked, and the note names the rules that size it",
}
#: Rules that read no field a preview leaves unknown, or read it so that an unknown changes nothing; and what is left.
NOT_READ = {
    "SW001": "reads suppressions: an annotation not known suppresses no finding, so every finding stays",
    "SW002": "an unknown word is read as an unresolved reference, never as a command it cannot read",
    "SW005": "reads what an object mentions, not values; an unknown workload part is reported as not checked",
    "SW103": "weighs the declared load against SW102's KV cache, whose rows hold the model and max_model_len; in the "
             "note only where the workload declares a load (test_pulumi_held_back_load.py), which this stack does not",
    "SW404": "reads the production flag of the stack configuration and the replica count (UNKNOWN, "
             "test_pulumi_unknowns.py), not the pod: not in a workload's note",
    # left (see the report): known gaps, each a class of its own
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
    assert (len(ROWS), len(SWEEP)) == (39, 184)


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
    # (SW402 no longer: the quantization the word may set does not change the checkpoint its start-up estimate
    # downloads and reads, mend10; unknown24 held it back)
    assert on_it == [("SW003", "advisory", True), ("SW101", "advisory", True), ("SW105", "advisory", True),
                     ("SW207", "advisory", True), ("SW308", "mandatory", True)]
    [tp] = [f["message"] for f in findings if f["codes"][0] == "SW101"]
    assert tp.startswith("SW101: cannot decide: tensor_parallel_size is not known")


@pytest.mark.parametrize(("command", "args", "word"), [
    (["vllm", "serve", *LLAMA_8B, U], ["--max-model-len", "8192"],
     "word 3 of its command (spec.template.spec.containers[0].command[3])"),
    (["vllm", "serve", U], ["--max-model-len", "8192"],
     "word 2 of its command (spec.template.spec.containers[0].command[2])"),
    (["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", *LLAMA_8B, U], None,
     "word 5 of its command (spec.template.spec.containers[0].command[5])"),
    (["vllm", "serve", *LLAMA_8B, "--tensor-parallel-size", U], None, None),  # the value of a flag: never a flag
    (["vllm", "serve", *LLAMA_8B, "--max-model-len"], [U], None),  # the command's last word takes the args' first
    (["vllm", "serve"], [U, "--max-model-len", "8192"],
     "word 0 of its args (spec.template.spec.containers[0].args[0])"),
], ids=["after-the-model", "model-or-flag", "api-server-module", "value-of-a-flag", "value-across-command-and-args",
        "args-after-serve"])
def test_an_unknown_word_of_the_command_where_a_flag_may_stand_cannot_be_decided_by_sw003(
        tmp_path: Path, command: list[Any], args: list[Any] | None, word: str | None) -> None:
    """unknown23 read only ``args``: a word of ``command`` not known at preview (``vllm serve <model> <unknown>``) may
    be a flag vLLM refuses as well, and SW003 said nothing. vLLM reads command and args as one command line, so the word
    before the args' first is the command's last (``--max-model-len`` there takes the unknown as its value)."""
    doc = preview()
    _set(doc, DEP, (*C0, "command"), command)
    _set(doc, DEP, (*C0, "args"), args)
    code, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    said = [(f["codes"], f["level"], f["message"]) for f in findings if "SW003" in f["codes"]]
    assert said == ([] if word is None else [(["SW003"], "advisory", "SW003: cannot decide: whether vLLM accepts its "
                                              f"command line: {word} is not known, and may be a flag vLLM refuses "
                                              f"{_AT_PREVIEW}")])


#: The LeaderWorkerSet leader's command line of the flag-value cases: TP4 × PP2 over its two pods, and a
#: gpu_memory_utilization above SW105's bound (a finding that needs none of the values made unknown below).
BIG = ["meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "4", "--pipeline-parallel-size", "2",
       "--distributed-executor-backend", "ray", "--gpu-memory-utilization", "0.97"]
SIZING = "SW101, SW102, SW104, SW106"
LAYOUT = "SW101, SW102, SW104, SW106, SW201, SW202, SW203, SW204, SW205, SW208, SW401"


@pytest.mark.parametrize(("flag", "value", "held", "decided"), [
    ("--tensor-parallel-size", "tensor_parallel_size", LAYOUT, ["SW105"]),
    ("--pipeline-parallel-size", "pipeline_parallel_size", LAYOUT, ["SW105"]),
    ("--max-model-len", "max_model_len", SIZING, ["SW105", "SW205"]),
    ("--gpu-memory-utilization", "gpu_memory_utilization", "SW101, SW102, SW104, SW105, SW106", ["SW205"]),
    ("--quantization", "quantization", SIZING, ["SW105", "SW205"]),
    ("--dtype", "dtype", SIZING, ["SW105", "SW205"]),
    ("--kv-cache-dtype", "kv_cache_dtype", SIZING, ["SW105", "SW205"]),
], ids=lambda v: v if isinstance(v, str) and v.startswith("--") else None)
def test_an_unknown_value_of_a_flag_is_never_vllms_default(tmp_path: Path, flag: str, value: str, held: str,
                                                           decided: list[str]) -> None:
    """A flag's value computed by another resource (``--tensor-parallel-size <unknown>``): every rule that needs it says
    it cannot decide, in one advisory note naming the value, never judging vLLM's default in its place (TP1, the
    model's own context length, 0.9 of the GPU's memory); the rules that do not need it decide as written (SW105 on
    the utilisation 0.97, SW205 on TP4 × PP2 across the nodes). The word is a flag's value, so SW003 says nothing,
    nor SW308: vLLM's parser reads it as that flag's value, never --api-key=<literal> (unknown25: SW308 blocked)."""
    args: list[Any] = list(BIG)
    if flag in args:
        args[args.index(flag) + 1] = U  # the last occurrence of a flag wins: the unknown is the value vLLM reads
    else:
        args += [flag, U]
    doc = preview()
    _set(doc, LWS, (*LEADER_C0, "args"), args)
    code, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    said = [(f["codes"], f["level"], f["message"]) for f in findings
            if f["subject"] == "LeaderWorkerSet serving/big"]
    first = held.split(",")[0]
    assert said[0] == (held.split(", "), "advisory", f"{first}: cannot decide: {value} is not known (a computed value or "
                       f"an unresolved reference); this holds back {held}, which are checked once the value is known: "
                       "lint the `pulumi up` state, or write the value as a literal")
    assert [(codes, level, message.startswith(f"{codes[0]}: cannot decide")) for codes, level, message in said[1:]] \
        == [([code], "advisory", False) for code in decided]


def _sw402(findings: list[dict[str, Any]], prefix: str) -> list[tuple[str, str]]:
    """(level, the message's first ``len(prefix)`` characters) of each SW402 finding."""
    return [(f["level"], f["message"][:len(prefix)]) for f in findings if f["code"] == "SW402"]


_HELD_NOTE = ("SW101: cannot decide: {value} is not known (a computed value or an unresolved reference); this holds back "
              "{held}, which are checked once the value is known: lint the `pulumi up` state, or write the value as a "
              "literal")


@pytest.mark.parametrize(("args", "value", "held"), [
    ([U, "--max-model-len", "8192"], "the model", "SW101, SW102, SW104, SW106, SW203, SW402"),
], ids=["model"])
def test_an_unknown_precision_or_model_is_never_a_checkpoint_of_nothing(tmp_path: Path, args: list[Any], value: str,
                                                                         held: str) -> None:
    """SW402's start-up estimate reads and downloads the checkpoint, whose size is the model's parameters × its
    precision: a model, dtype or quantization not known at preview left the estimate without those terms, which a
    startup probe of 60 s passes (silent before; 48-304 s with them written: 15 GiB downloaded at every start). Now SW402
    cannot decide, in the capacity rules' note on the same value."""
    doc = preview()
    _set(doc, DEP, (*C0, "startupProbe", "failureThreshold"), 6)
    _set(doc, DEP, (*C0, "args"), [*LLAMA_8B])
    _, errors, findings = lint_document(tmp_path, doc)
    known = ("SW402: the startup probe of container `vllm` allows 60 s (initialDelaySeconds 0 + periodSeconds 10 × "
             "failureThreshold 6), but starting takes an estimated 48-304 s")
    assert errors == "" and _sw402(findings, known) == [("advisory", known)]
    _set(doc, DEP, (*C0, "args"), args)
    _, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    assert [(f["codes"], f["level"], f["message"]) for f in findings if "SW402" in f["codes"]] == [
        (held.split(", "), "advisory", _HELD_NOTE.format(value=value, held=held))]


@pytest.mark.parametrize("dtype", [U, "float32", "half", "auto"])
def test_the_dtype_changes_nothing_sw402_reads_so_an_unknown_one_is_decided(tmp_path: Path, dtype: Any) -> None:
    """vLLM downloads and reads the checkpoint as stored and casts it to ``--dtype`` as it copies each tensor into
    the model (default_loader.py, weight_utils.py): every value the dtype can take gives SW402 the same estimate and
    the same verdict, so one not known yet is decided (mend6: it held SW402 back; review27). The capacity rules, whose
    weights in memory the dtype does change, still cannot decide; a float32 written is still read as 15 GiB downloaded,
    not 30."""
    doc = preview()
    _set(doc, DEP, (*C0, "startupProbe", "failureThreshold"), 6)
    _set(doc, DEP, (*C0, "args"), [*LLAMA_8B, "--dtype", dtype])
    _, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    known = ("SW402: the startup probe of container `vllm` allows 60 s (initialDelaySeconds 0 + periodSeconds 10 × "
             "failureThreshold 6), but starting takes an estimated 48-304 s (15.0 GiB downloaded at every start")
    assert _sw402(findings, known) == [("advisory", known)]
    held = [(f["codes"], f["message"]) for f in findings if "cannot decide: dtype" in f["message"]]
    assert held == ([(["SW101", "SW102"], _HELD_NOTE.format(value="dtype", held="SW101, SW102"))] if dtype is U
                    else [])


@pytest.mark.parametrize("quantization", [U, "fp8", "bitsandbytes", "experts_int8"])
def test_the_quantization_changes_nothing_sw402_reads_so_an_unknown_one_is_decided(tmp_path: Path,
                                                                                   quantization: Any) -> None:
    """mend10: vLLM downloads and reads a 16-bit checkpoint's files as stored and quantises what it has read
    (``--quantization fp8``: Fp8LinearMethod / Fp8OnlineLinearMethod in fp8.py take the loader's 16-bit tensors;
    bitsandbytes and experts_int8 likewise), so every method gives SW402 the 15 GiB of Llama-3.1-8B's files, where
    fp8 was counted 8.5 GiB; one not known yet is decided (unknown24 held SW402 back on it). The capacity rules, whose
    weights in memory the method does change, still cannot decide on an unknown one."""
    doc = preview()
    _set(doc, DEP, (*C0, "startupProbe", "failureThreshold"), 6)
    _set(doc, DEP, (*C0, "args"), [*LLAMA_8B, "--quantization", quantization])
    _, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    known = ("SW402: the startup probe of container `vllm` allows 60 s (initialDelaySeconds 0 + periodSeconds 10 × "
             "failureThreshold 6), but starting takes an estimated 48-304 s (15.0 GiB downloaded at every start")
    assert _sw402(findings, known) == [("advisory", known)]
    held = [(f["codes"], f["message"]) for f in findings if "cannot decide: quantization" in f["message"]]
    assert held == ([(["SW101", "SW102"], _HELD_NOTE.format(value="quantization", held="SW101, SW102"))]
                    if quantization is U else [])


def test_an_unknown_download_dir_may_be_on_a_volume(tmp_path: Path) -> None:
    """``--download-dir <unknown>`` was read as a folder on no volume ("downloaded at every start"), whose download
    raises the estimate's low end: a startup probe of 40 s blocked, sure, with a false reason. A folder not known may
    be on a volume, or not: the download is possible, and the 40 s advisory (33 s, the low end without it, fits)."""
    doc = preview()
    _set(doc, DEP, (*C0, "startupProbe", "failureThreshold"), 4)
    _set(doc, DEP, (*C0, "args"), [*LLAMA_8B, "--download-dir", "/data"])
    _, _, findings = lint_document(tmp_path, doc)
    on_disk = ("SW402: the startup probe of container `vllm` allows 40 s (initialDelaySeconds 0 + periodSeconds 10 × "
               "failureThreshold 4), but starting needs 48-304 s (15.0 GiB downloaded at every start, as no volume keeps "
               "the Hugging Face cache")
    assert _sw402(findings, on_disk) == [("mandatory", on_disk)]
    _set(doc, DEP, (*C0, "args"), [*LLAMA_8B, "--download-dir", U])
    _, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    possible = ("SW402: the startup probe of container `vllm` allows 40 s (initialDelaySeconds 0 + periodSeconds 10 × "
                "failureThreshold 4), but starting takes an estimated 33-304 s (15.0 GiB downloaded unless the image or "
                "the environment already holds it; 15.0 GiB read")
    assert _sw402(findings, possible) == [("advisory", possible)]


@pytest.mark.parametrize(("path", "metrics", "said"), [
    (("spec", "metrics"), QUEUE, "cannot decide: a metric of HorizontalPodAutoscaler `llama` is not known (a computed "
                                 "value or an unresolved reference): lint the `pulumi up` state, or write the value as a "
                                 "literal"),
    (("spec",), QUEUE, "cannot decide: a metric of HorizontalPodAutoscaler `llama` is not known (a computed value or an "
                       "unresolved reference): lint the `pulumi up` state, or write the value as a literal"),
    (("spec", "metrics", 1), [*CPU, *QUEUE], "scales Deployment serving/llama on cpu, which does not rise with vLLM's "
                                             "load as its queue does"),
    (("spec", "scaleTargetRef"), CPU, "cannot decide: which workload HorizontalPodAutoscaler `llama` scales (its "
                                      "scaleTargetRef) is not known (a computed value or an unresolved reference): lint "
                                      "the `pulumi up` state, or write the value as a literal"),
], ids=["metrics", "spec", "an-entry-beside-cpu", "target"])
def test_an_unknown_metric_or_target_of_an_autoscaler_is_never_its_default(tmp_path: Path, path: Path_,
                                                                           metrics: list[Any], said: str) -> None:
    """The reader gives an HPA that names no metric Kubernetes' default, 80 % CPU: a metrics list or entry not known at
    preview read so made SW403 say, sure, that it scales on CPU (and a metric name left out read as none: silent).
    Now SW403 cannot decide; a utilisation metric written beside the unknown one is sure. A whole spec not known is an
    autoscaler of unknown target and metrics, not a workload whose pods cannot be read (it blocked through SW306,
    SW308 and SW310 before: "its spec")."""
    doc = preview()
    _set(doc, HPA, ("spec", "metrics"), metrics)
    _set(doc, HPA, path, U)
    code, errors, findings = lint_document(tmp_path, doc)
    assert (code, errors) == (0, "")
    assert [(f["level"], f["message"]) for f in findings if "SW403" in f["codes"]] == [("advisory", f"SW403: {said}")]
    assert [f["code"] for f in findings if f["subject"].startswith("HorizontalPodAutoscaler")] == ["SW403"]


_NOT_KNOWN = " is not known (a computed value or an unresolved reference): lint the `pulumi up` state, or write the value " \
    "as a literal"


@pytest.mark.parametrize(("path", "said"), [
    (("metadata", "annotations", ALB_ATTRS),
     [("SW406", "advisory", f"SW406: cannot decide: the annotation {ALB_ATTRS} of Ingress `llama`{_NOT_KNOWN}")]),
    (("metadata", "annotations"),
     [("SW306", "mandatory", "SW306: cannot decide: annotation `alb.ingress.kubernetes.io/scheme` of Ingress `llama`"
                             f"{_NOT_KNOWN}"),
      ("SW406", "advisory", f"SW406: cannot decide: the annotation {ALB_ATTRS} of Ingress `llama`{_NOT_KNOWN}")]),
], ids=["the-algorithm", "the-whole-map"])
def test_an_unknown_annotation_of_an_ingress_is_never_absent(tmp_path: Path, path: Path_,
                                                             said: list[tuple[str, str, str]]) -> None:
    """The Pulumi adapter left an Ingress's annotation not known at preview out for the reader: target-group
    attributes not known read as none, so SW406 was silent (no ALB annotation left), or said, sure, "balances ... with
    round_robin" (another ALB annotation beside it), and a scheme not known as none, an internal ALB (SW306 advisory
    where it may face the internet).
    Now an annotation not known is UNKNOWN, and a whole map not known may hold both: SW406 cannot decide (advisory),
    SW306 cannot decide and blocks (fail closed). An Ingress in front of one replica (its Deployment's and its
    autoscaler's bound) gives SW406 nothing to say."""
    doc = preview()
    _set(doc, ING, ("metadata", "annotations"), {ALB_ATTRS: f"{ALGORITHM}=least_outstanding_requests"})
    _set(doc, ING, path, U)
    code, errors, findings = lint_document(tmp_path, doc)
    assert errors == "" and code == (1 if len(said) > 1 else 0)
    assert [(f["code"], f["level"], f["message"]) for f in findings
            if f["subject"] == "Ingress serving/llama" and "cannot decide" in f["message"]] == said
    _set(doc, DEP, ("spec", "replicas"), 1)
    _set(doc, HPA, ("spec", "maxReplicas"), 1)
    _, _, findings = lint_document(tmp_path, doc)
    assert [f for f in findings if f["code"] == "SW406"] == []


_FLAG_POSITION = ("SW308: cannot decide: whether container `vllm` passes --api-key or --hf-token a literal value: a word "
                  f"of its command line is not known {_AT_PREVIEW}")
_COMPUTED_KEY = ("SW308: container `vllm` passes --api-key a value computed by the program, not known at preview: "
                 "whatever it turns out to be, it is written in the Deployment in plain text; drop the flag and give "
                 "vLLM the key in its API-key environment variable from a Secret (valueFrom.secretKeyRef), then rotate "
                 "the key")


@pytest.mark.parametrize(("command", "args", "said"), [
    (None, [*LLAMA_8B, "--tensor-parallel-size", U], []),
    (None, [*LLAMA_8B, "--max-model-len", U], []),
    (None, [*LLAMA_8B, "--served-model-name", U], []),
    (None, ["--model", U, "--max-model-len", "8192"], []),
    (None, [*LLAMA_8B, "-tp", U], []),
    (["vllm", "serve", *LLAMA_8B, "--max-model-len"], [U], []),  # the command's last word takes the args' first
    (None, [*LLAMA_8B, "--api-key", U], [("mandatory", False, _COMPUTED_KEY)]),
    (["vllm", "serve", *LLAMA_8B, "--api-key"], [U], [("mandatory", False, _COMPUTED_KEY)]),
    # --hf-token takes its value optionally (a switch without one): the word after it may be a flag
    (None, [*LLAMA_8B, "--hf-token", U], [("mandatory", True, _FLAG_POSITION)]),
    (None, [*LLAMA_8B, U], [("mandatory", True, _FLAG_POSITION)]),  # after the model: a flag may stand there
    (None, [U, "--max-model-len", "8192"], [("mandatory", True, _FLAG_POSITION)]),  # the model, or a flag
    (None, [*LLAMA_8B, "--served-model-name", "llama", U], [("mandatory", True, _FLAG_POSITION)]),
    # a word `--max-model-len=${len}` is unknown at preview as a whole: its flag is not known either
    (None, [*LLAMA_8B, U, "--max-model-len", "8192"], [("mandatory", True, _FLAG_POSITION)]),
    (None, [*LLAMA_8B, "--api-key", U, U],
     [("mandatory", False, _COMPUTED_KEY), ("mandatory", True, _FLAG_POSITION)]),
], ids=["tp", "max-model-len", "served-name", "model-option", "tp-short", "value-across-command-and-args", "api-key",
        "api-key-across-command-and-args", "hf-token", "after-the-model", "model-or-flag", "after-a-served-name",
        "whole-flag", "api-key-then-a-word"])
def test_sw308_decides_on_the_words_that_can_be_a_flag(tmp_path: Path, command: list[Any] | None, args: list[Any],
                                                       said: list[tuple[str, bool, str]]) -> None:
    """unknown25: SW308 blocked every preview whose vLLM command line held a computed word ("it may be
    --api-key=<literal>"), a computed TP, context length or model path among them. vLLM's parser reads the word after
    a flag that takes a value as that value, whatever it is (the reader SW003 asks the same of): no credential. A
    word where a flag may stand still cannot be decided (fail closed); --api-key's computed value is a literal written
    in the pod spec whatever it turns out to be (a generated password): decided, and mandatory, as any literal of vLLM's
    API key, which has no issuer format."""
    doc = preview()
    _set(doc, DEP, (*C0, "command"), command)
    _set(doc, DEP, (*C0, "args"), args)
    _, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    assert [(f["level"], f["undecided"], f["message"]) for f in findings if f["code"] == "SW308"] == said


@pytest.mark.parametrize(("path", "value", "said"), [
    ((*C0, "env", 1, "value"), U, []),  # VLLM_LOGGING_LEVEL computed: the name decides, no credential
    ((*C0, "env", 2), {"name": "MAX_MODEL_LEN", "value": U}, []),
    ((*C0, "env", 1, "name"), U, [("mandatory", "SW308: cannot decide: whether container `vllm` writes a credential "
                                               f"in its env: not known {_AT_PREVIEW}")]),
    ((*C0, "env", 2), {"name": "VLLM_API_KEY", "value": U},
     [("mandatory", "SW308: container `vllm` sets VLLM_API_KEY to a value computed by the program, not known at "
                    "preview: whatever it turns out to be, it is written in the Deployment in plain text; write it into "
                    "a Secret instead (the program may create it) and take it with valueFrom.secretKeyRef")]),
    ((*C0, "env", 2), {"name": "HF_TOKEN", "value": U},
     [("mandatory", "SW308: cannot decide: whether container `vllm` writes a credential in HF_TOKEN: its value is not "
                    f"known {_AT_PREVIEW}")]),
    ((*C0, "env", 2), {"name": "REGISTRY_PASSWORD", "value": U},
     [("mandatory", "SW308: cannot decide: whether container `vllm` writes a credential in REGISTRY_PASSWORD: its "
                    f"value is not known {_AT_PREVIEW}")]),
    ((*C0, "env", 2), {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": U, "key": "token"}}}, []),
    ((*C0, "env"), [{"name": "HF_TOKEN", "value": U}, {"name": "HF_TOKEN", "valueFrom": {
        "secretKeyRef": {"name": "hf", "key": "token"}}}], []),  # Kubernetes keeps the last entry of a name
], ids=["a-setting", "an-entry-of-a-setting", "a-name", "vllm-api-key", "hf-token", "a-password", "from-a-secret",
        "overridden-from-a-secret"])
def test_sw308_on_an_unknown_env_value_decides_by_its_name(tmp_path: Path, path: Path_, value: Any,
                                                           said: list[tuple[str, str]]) -> None:
    """An env entry whose name is known and no credential's, its value computed (``MAX_MODEL_LEN: <computed>``): no
    credential, no finding; an entry whose name is not known may be HF_TOKEN: it cannot be decided (fail closed). A
    credential's plain value computed was silent (read as a valueFrom): VLLM_API_KEY's, written in plain text whatever
    it is and of no issuer format, blocks, decided; HF_TOKEN's or a name that looks like a credential's blocks or not
    by the value's shape: cannot decide (fail closed). A valueFrom, even of a Secret whose name is computed, is none."""
    doc = preview()
    _set(doc, DEP, path, value)
    _, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    assert [(f["level"], f["message"]) for f in findings if f["code"] == "SW308"] == said


def _router_preview(logic: Any) -> dict[str, Any]:
    """A preview of production-stack's router (the vllm-stack chart's router Deployment) in front of an engine of two
    replicas its selector matches, with ``logic`` its --routing-logic word."""
    from pulumi_preview import DEP_T

    engine_labels = {"model": "llama3", "environment": "test", "release": "test"}
    return {"steps": [
        step(DEP_T, "router", {"metadata": {"name": "vllm-deployment-router", "namespace": "llm"}, "spec": {
            "replicas": 1, "selector": {"matchLabels": {"app": "router"}},
            "template": {"metadata": {"labels": {"app": "router"}}, "spec": {"containers": [{
                "name": "router-container", "image": "lmcache/lmstack-router:latest",
                "args": ["--service-discovery", "k8s", "--k8s-namespace", "llm", "--k8s-label-selector",
                         "environment=test,release=test", "--routing-logic", logic]}]}}}}),
        step(DEP_T, "engine", {"metadata": {"name": "vllm-llama3-deployment-vllm", "namespace": "llm"}, "spec": {
            "replicas": 2, "selector": {"matchLabels": engine_labels},
            "template": {"metadata": {"labels": engine_labels}, "spec": {
                "nodeSelector": {"node.kubernetes.io/instance-type": "g6e.xlarge"},
                "containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
                                "args": ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"],
                                "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}}),
    ]}


@pytest.mark.parametrize(("logic", "said"), [
    ("roundrobin", [("SW406", "advisory", False)]),
    ("session", []),
    (U, [("SW406", "advisory", True)]),  # computed at preview: may be roundrobin, never read as any choice
    ("least_loaded", [("SW003", "advisory", False)]),  # no release read takes it: the router exits at start
])
def test_an_unknown_routing_logic_of_the_router_is_never_a_choice(tmp_path: Path, logic: Any,
                                                                  said: list[tuple[str, str, bool]]) -> None:
    """note56: the production-stack router's --routing-logic not known at preview had no row. A computed word is
    unknown: SW406 cannot decide (advisory, as its other unknowns), never read as roundrobin or session; a word no
    release of the router takes is SW003's crash (advisory: its image names no release)."""
    code, errors, findings = lint_document(tmp_path, _router_preview(logic))
    assert (code, errors) == (0, "")
    assert [(f["code"], f["level"], "cannot decide" in f["message"]) for f in findings
            if f["subject"] == "Deployment llm/vllm-deployment-router"] == said
    if logic == U:  # said as a computed value, not as the `$(VAR)` shardwise writes for one (it named that word)
        assert [f["message"] for f in findings if f["code"] == "SW406"] == [
            f"SW406: cannot decide: the router's --routing-logic{_NOT_KNOWN}"]

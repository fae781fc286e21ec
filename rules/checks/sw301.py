"""SW301: a distributed-runtime port reachable from outside the serving group."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..capacity.group import most_tp_unseen
from ..engine import Hit, LintConfig, ObjectRule, RuleMeta, hit, object_subject
from ..model import (
    UNKNOWN,
    UNKNOWN_TOKEN,
    Ingress,
    Inventory,
    NodePool,
    RayPins,
    SecurityGroup,
    Service,
    ServingGroup,
    SgRule,
    Undecidable,
    UnknownEnv,
    is_unknown,
    known,
)
from ..model.inventory import UNRECOGNISED_ENGINE
from ._env import vllm_containers
from ._net import (
    EPHEMERAL_PORTS,
    EXTERNAL_SERVICE_TYPES,
    RUNTIME_PORTS,
    OutsideInputs,
    backends,
    describe_rule_ports,
    is_world,
    mesh_only,
    opens_port,
    pool_security_groups,
    routed_ports,
    routed_targets,
    rule_sources,
    runtime_ports_covered,
    selectable,
    selectable_pods,
    selects,
    world_families,
)

#: What the rule checks: a node pool only for its security groups (whether they are known).
Checked = NodePool | SecurityGroup | Service | Ingress


class RuntimePortExposed(ObjectRule[Checked]):
    meta = RuleMeta(
        code="SW301",
        name="runtime-port-exposed",
        enforcement="mandatory",
        severity="critical",
        summary=(
            "A distributed-runtime port (Ray, torch.distributed, vLLM KV transfer, NCCL) is reachable from "
            "outside the serving group's security group, or exposed by a Service or Ingress."
        ),
        why=(
            "Ray's GCS (6379), dashboard (8265), client (10001) and dashboard-agent (52365) ports, the "
            "torch.distributed store and vLLM's data-parallel master (29500), vLLM's native multi-node master "
            "(--master-port, 29501) and data-parallel RPC port (29550), its KV-transfer, NIXL and Mooncake "
            "ports (14579, 5600, 8998), and the ephemeral ports NCCL and Ray's node and object managers draw "
            "from carry unauthenticated, unencrypted traffic; vLLM, PyTorch and Ray all say they must stay on "
            "an isolated network. Anyone who reaches them can run code on the GPU nodes or read and corrupt "
            "tensors. vLLM's --api-key guards only the /v1 HTTP routes, not these ports. Sources are compared "
            "as networks (0::0/0 is ::/0; 0.0.0.0/1 and 128.0.0.0/1 together are the whole internet), a "
            "managed prefix list is a source, and a Service's named targetPort is resolved against the pods it "
            "selects (unknown, and blocking, when they are not in the inputs). On a Service or Ingress, a port that is "
            "only Ray's default number (6379, 8265, 10001, 52365) is Ray's where the input says Ray runs there: the "
            "pods it selects are a Ray custom resource's or a vLLM serving group's, or a container of theirs runs a "
            "Ray image (rayproject/, anyscale/, an image named ray) or command (ray start, serve run, import ray, a "
            "ray executor or data-parallel backend), or its selector names a ray.io/ label, or the port (on the "
            "Service or the container) is named as only Ray names it (gcs-server, gcs, or a name with the word ray: "
            "ray-client; a word any program uses, such as dashboard, client or metrics, says nothing alone); but a Ray "
            "worker (a KubeRay worker group, ray start --address) runs none of the head's GCS, dashboard and client "
            "servers: of these, only its dashboard agent's port is Ray's on it, whatever the selector or a port's "
            "name says; and the port a ray start's flags put Ray on (--port, --dashboard-port, "
            "--ray-client-server-port, --dashboard-agent-listen-port, and on any node --dashboard-agent-grpc-port, "
            "--node-manager-port, --object-manager-port, --runtime-env-agent-port and the worker ports "
            "--min-worker-port to --max-worker-port or --worker-port-list pin, and a head's --dashboard-grpc-port "
            "where its Ray release is readable (a rayproject/ray image's tag, KubeRay's rayVersion where the image is "
            "not Ray's own or is pinned by digest alone; Ray's own tagged nightly or latest is newer) and 2.44 or "
            "earlier, KubeRay's rayStartParams; where they "
            "pin none, ray start's default worker range 10002-19999, whose free ports the raylet hands its workers in "
            "turn: always advisory, since a program of the pod may hold the port and the raylet then skips it, and "
            "none where it is the port the pod's vLLM server listens on) is Ray's, "
            "whatever its number, and a port a KubeRay container only names gcs-server, dashboard or client is not "
            "(KubeRay starts no Ray server on the ports its containers name), and each such pin is Ray's where "
            "another flag's value is not read (a Secret's $(VAR): every Ray default port is Ray's then), while a pin "
            "whose value is not known yet (computed at preview, a template placeholder) makes a port the Service "
            "sends to those pods, the API port their own vLLM listens on excepted, one that cannot be decided; a "
            "head's dashboard is Ray's "
            "only where --dashboard-host puts it beyond the pod's loopback (Ray's default is 127.0.0.1; KubeRay "
            "writes 0.0.0.0 where rayStartParams name no host), whatever its operator's labels say. The "
            "other runtime ports (29500, 29501, 29550, 14579, 5600, "
            "8998) are torch.distributed's, NCCL's or vLLM's where the input says they run there: the pods are a "
            "vLLM serving group's whose settings open that port (vLLM's own multi-node launcher, --nnodes above 1, "
            "for 29501; data parallelism across nodes or pods for 29550; torchrun, --master-port or a MASTER_PORT or "
            "VLLM_DP_* env for 29500; a KV connector for its own port: NIXL's 5600, Mooncake's 8998, P2P NCCL's "
            "14579, LMCache's and the offloading ones none, one shardwise does not know any; a one-node server opens "
            "none, "
            "data-parallel or not: it takes free ports, and so does a group of pods run by Ray's executor), a "
            "PyTorchJob's Master, or its Workers where it has none (29500 and its MASTER_PORT: its pytorchjob-port, "
            "23456 by default, or its env's) or a multi-node "
            "LeaderWorkerSet's (29500 and 29501), or a container's env, its envFrom ConfigMaps of the input included "
            "(MASTER_ADDR, MASTER_PORT, WORLD_SIZE, VLLM_DP_*; of NCCL's, only the port NCCL_COMM_ID names: NCCL "
            "listens on no fixed port otherwise), command (torchrun, --master-port, "
            "--data-parallel-rpc-port, --kv-transfer-config, vllm serve) or image (vllm/vllm-openai) says so, or the "
            "selector names a training.kubeflow.org/ or leaderworkerset.sigs.k8s.io/ label and the pods it selects "
            "are not in the inputs (a LeaderWorkerSet's or PyTorchJob's pods of the inputs carry the labels their "
            "controller sets: the set's name, group and worker index; the job's name, replica type and index), or the "
            "port (on the Service or the container) is named for them (dist, master, c10d, dp-rpc, nixl); and a port "
            "of another number that the selected pods' own settings put the runtime on is the runtime's "
            "(--master-port, --data-parallel-rpc-port, a KV connector's kv_port, VLLM_NIXL_SIDE_CHANNEL_PORT, "
            "MASTER_PORT, a PyTorchJob's MASTER_PORT, NCCL_COMM_ID's, a MoRIIO KV connector's handshake and notify "
            "ports: 6301 and 61005 unless its kv_connector_extra_config names others, and above each the ports its "
            "ranks take, up to the data-parallel size plus the tensor-parallel size less 2; where TP is not known "
            "yet, a port that a TP the pod's GPUs allow would give a rank cannot be decided, and where the "
            "data-parallel size is not known yet, neither can any port above the base but the pod's vLLM API port "
            "and a port another container or native sidecar of its pods declares (a rank's listener fails on a port "
            "in use) "
            "(the data-parallel rank counts all of the engines, not the pod's: it is never read as vLLM's default "
            "1); where either size is a variable a Secret or a ConfigMap not in the inputs sets, such a port is "
            "only possibly a rank's: advisory, naming the variable; above NIXL's side "
            "channel port, 5600 or VLLM_NIXL_SIDE_CHANNEL_PORT, one for each data-parallel rank, and in vLLM 0.11.0 "
            "and earlier one for each tensor-parallel worker of each, up to the data-parallel size times the "
            "tensor-parallel size less 1 (advisory where the release is not known); above Mooncake's, 8998 or "
            "VLLM_MOONCAKE_BOOTSTRAP_PORT, the same for each worker in vLLM 0.15.1 and earlier; above the P2P NCCL "
            "connector's "
            "kv_port, one for each worker of every data-parallel rank). Either way it blocks "
            "then, and where the "
            "Service's selector, or a selected pod's labels, image, command or env, "
            "is not known (computed at preview, or a template placeholder such as ${RAY_IMAGE}; what an envFrom "
            "Secret, or a ConfigMap not in the inputs, could set is not such a value: the pod is judged on what the "
            "manifests set), or a selected pod serves a "
            "model with an engine shardwise does not recognise (fail closed). A command is read as the container "
            "runs it: $(VAR) and $VAR from its env and the ConfigMaps of the input (a shell's ${VAR:-word}, nested "
            "or not, its default where nothing else may set it), a variable its script assigns once before it uses "
            "it, and a script a ConfigMap of the input mounts at a path it names; vLLM's multi-node-serving.sh "
            "leader or worker (the LeaderWorkerSet guide's) as the ray start it runs, with the words it passes on. "
            "Where the pods it selects are "
            "all in the inputs and none runs the "
            "runtime (a Redis on 6379, a web application on 29500), the number is another program's: no finding; "
            "but where a pod runs its image's own entrypoint (no command) and the image is not one "
            "well known to run another program (redis, nginx, grafana, postgres, minio, bitnami/…), what it runs the "
            "input does not show: advisory. "
            "Where they are not in the inputs (an operator's pods, a Dragonfly on 6379), what serves the port is not "
            "known: advisory. Behind an Ingress, each Service it routes the port to answers for its own pods, "
            "judged as a Service of type LoadBalancer would be: the ports its pods' settings put a runtime on, and "
            "a Ray pin or rank size not known yet, count there too; a runtime's default port it routes to a Service "
            "not in the inputs is advisory (what serves it is not known)."
        ),
        bad_example=(
            "resources:\n"
            "  gpu-nodes:\n"
            "    type: aws:ec2:SecurityGroup\n"
            "    properties:\n"
            "      ingress:\n"
            "        - protocol: tcp\n"
            "          fromPort: 6379\n"
            "          toPort: 6379\n"
            "          cidrBlocks: [0.0.0.0/0]"
        ),
        good_example=(
            "resources:\n"
            "  gpu-nodes:\n"
            "    type: aws:ec2:SecurityGroup\n"
            "    properties:\n"
            "      ingress:\n"
            "        - protocol: '-1'\n"
            "          fromPort: 0\n"
            "          toPort: 0\n"
            "          self: true"
        ),
        remediation=(
            "Allow runtime traffic on the GPU nodes' security group only from that same security group "
            "(a self-referencing rule), and remove rules that open these ports to CIDR blocks or other "
            "groups. Keep Ray, torch.distributed and KV-transfer ports off LoadBalancer and NodePort "
            "Services and Ingresses; expose only the OpenAI-compatible API port through a gateway."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/usage/security.html",
            "https://docs.ray.io/en/latest/ray-security/index.html",
            "https://github.com/pytorch/pytorch/blob/main/SECURITY.md",
            "https://docs.aws.amazon.com/vpc/latest/userguide/security-group-rules.html",
        ),
        scope="stack",
        safe_to_skip_unknown=False,
    )

    def objects(self, inv: Inventory) -> Iterable[Checked]:
        return [*inv.pools, *inv.security_groups, *inv.services, *inv.ingresses]

    def check_object(self, obj: Checked, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if isinstance(obj, NodePool):
            pool_security_groups(inv, obj)  # an unknown security-group list is undecided on the pool
            return ()
        if isinstance(obj, SecurityGroup):
            return self._security_group(obj, id(obj) in attached_security_groups(inv))
        if isinstance(obj, Service):
            return self._service(inv, obj)
        return self._ingress(inv, obj)

    def _security_group(self, sg: SecurityGroup, attached: bool) -> Iterator[Hit]:
        ingress = [r for r in sg.rules if r.direction is UNKNOWN or r.direction == "ingress"]
        for rule in ingress:
            ports = runtime_ports_covered(rule)
            if not ports:
                continue
            sources = rule_sources(sg, rule)
            together = ""
            if attached:
                bad = sources
            else:
                bad = [s for s in sources if is_world(s)]
                if not bad:
                    bad, together = self._world_by_union(sg, rule, ingress)
            if not bad:
                continue
            if rule.direction is UNKNOWN:  # as an ingress rule it would be a finding
                raise Undecidable(f"type (ingress or egress) of a rule of security group `{sg.name}`")
            what = describe_rule_ports(rule)
            if len(ports) == 1 and rule.from_port == rule.to_port:
                names = ports[0].rsplit(" ", 1)[0]
            else:
                names = _join(ports)
            where = rule.location if (rule.location.file or rule.location.urn) else sg.location
            yield hit(
                sg,
                f"security group `{sg.name}` allows {what} ({names}) from {_join(bad)}{together}, not only from "
                "itself; make the rule's source the group itself (a self-referencing rule: self = true, or "
                "source_security_group_id its own id)",
                where,
            )

    @staticmethod
    def _world_by_union(sg: SecurityGroup, rule: SgRule, ingress: list[SgRule]) -> tuple[list[str], str]:
        """The rule's CIDRs when, with other ingress rules' CIDRs opening the same runtime port, they cover
        every address of IPv4 or IPv6 (``0.0.0.0/1`` + ``128.0.0.0/1``), and a phrase saying so."""
        mine = [str(c) for c in [*known(rule.cidrs, "cidr_blocks of a security group rule"),
                                 *known(rule.ipv6_cidrs, "ipv6_cidr_blocks of a security group rule")]]
        if not mine:
            return [], ""
        for port in [*RUNTIME_PORTS, EPHEMERAL_PORTS[0]]:
            if not opens_port(rule, port):
                continue
            union = list(mine)
            others: list[str] = []
            for other in ingress:
                if other is rule or not opens_port(other, port):
                    continue
                cidrs = [str(c) for c in [*known(other.cidrs, "cidr_blocks of a security group rule"),
                                          *known(other.ipv6_cidrs, "ipv6_cidr_blocks of a security group rule")]]
                union += cidrs
                others += [c for c in cidrs if c not in others]
            families = world_families(union)
            if families:
                whole = " and ".join(f"every {f} address" for f in families)
                also = f" (with {_join(others)} of the group's other rules)" if others else ""
                return mine, f"{also}, which together cover {whole}"
        return [], ""

    def _service(self, inv: Inventory, svc: Service) -> Iterator[Hit]:
        kind = known(svc.type, f"type of Service `{svc.name}`")
        if kind not in EXTERNAL_SERVICE_TYPES:
            return
        exposed: dict[int, str] = {}
        settings: _SettingPorts | None = None  # built where a port needs it (review49: for every external Service)
        undecided: Undecidable | None = None  # raised only when no known port is exposed
        for p in svc.ports:
            if p is UNKNOWN:
                undecided = undecided or Undecidable(f"a port of Service `{svc.name}`")
            elif isinstance(p, int) and p in RUNTIME_PORTS:
                exposed.setdefault(p, "")
        for target in svc.target_ports:
            try:
                port, named = resolve_target_port(inv, svc, target)
            except Undecidable as u:
                undecided = undecided or u
                continue
            if port is None:
                continue
            if port in RUNTIME_PORTS:
                exposed[port] = exposed.get(port) or named
                continue
            settings = settings or _SettingPorts(inv, svc)
            verdict = settings.judge(port)
            if isinstance(verdict, Undecidable):
                undecided = undecided or verdict
                verdict = None  # held by one local only: the raised value's traceback holds this frame
            elif verdict is not None:
                exposed[port] = exposed.get(port) or named
        if undecided is not None and not exposed:
            try:
                raise undecided
            finally:  # not kept in this frame, which the raised value's traceback holds: no reference cycle
                undecided = None
        if exposed and _runs_other_program(inv, svc):
            return
        for port in sorted(exposed):
            if port not in RUNTIME_PORTS:  # review33: the selected pods' settings say the runtime listens there
                via = f", targetPort `{exposed[port]}`" if exposed[port] else ""
                assert settings is not None  # a port of its pods' settings was judged there
                what, release = settings.set_by[port]  # release: why a release not known leaves it unsure (mend24)
                yield hit(svc, f"Service `{svc.namespace}/{svc.name}` of type {kind} exposes port {port} "
                               f"({what}{via}) outside the cluster; {_SERVICE_REMEDY}"
                               + (f" (advisory: {release})" if release else ""), level="advisory" if release else None)
                continue
            via = f", targetPort `{exposed[port]}`" if exposed[port] else ""
            runtime, others, unsure, hidden = _what_it_selects(inv, [svc], port)
            # a name does not make Ray listen where the Ray nodes it selects are known not to (mend11: a worker's 6379)
            as_runtime = _named_so(svc, port, exposed[port]) and not (
                port in RAY_PORTS and _ray_nodes_known(inv, svc, port))
            if not (runtime or as_runtime or unsure):
                if hidden:  # what its pods run is their image's entrypoint, not shown: advisory (mend7)
                    yield hit(svc, f"Service `{svc.namespace}/{svc.name}` of type {kind} exposes port {port}{via} "
                                   f"outside the cluster: {_hidden_text(port, hidden, 'selects')}; "
                                   f"{_hidden_remedy(port)}", level="advisory")
                elif not others:  # its pods are not in the inputs: advisory (DESIGN.md, "Unknown, and what is not")
                    yield hit(svc, f"Service `{svc.namespace}/{svc.name}` of type {kind} exposes port {port}{via} "
                                   f"outside the cluster: {_absent_text(port)}; {_absent_remedy(port)}",
                              level="advisory")
                continue  # its pods are in the inputs and none runs the runtime: the number is another program's
            yield hit(
                svc,
                f"Service `{svc.namespace}/{svc.name}` of type {kind} exposes port {port} "
                f"({_port_text(port, runtime or as_runtime, others, unsure)}{via}) outside the "
                f"cluster; {_SERVICE_REMEDY}",
            )

    def _ingress(self, inv: Inventory, ing: Ingress) -> Iterator[Hit]:
        if mesh_only(ing):
            return  # a GAMMA route (its parents are Services): mesh traffic, none from outside the cluster (mend23)
        exposed: set[int] = {p for p in ing.ports if isinstance(p, int) and p in RUNTIME_PORTS}
        undecided: Undecidable | None = None  # raised only when no known port is exposed
        behind: list[Service] = []
        via: dict[int, list[Service]] = {}  # the Services behind it that send to each runtime port
        set_by: dict[int, tuple[str, str]] = {}  # the ports their pods' settings put a runtime on (mend28)
        missing: list[str] = []  # the Services it names in its own namespace that are not in the inputs (review46)
        # the Services it surely sends to: never one of another namespace whose ReferenceGrant is not in the inputs
        # (what is outside them blocks nothing, mend16), nor an InferencePool (its target port is the engine's own)
        for kind, _name, found, why in backends(inv, ing):
            if kind != "Service" or isinstance(why, OutsideInputs):
                continue
            if not found and why is None and _name not in missing:
                missing.append(_name)
            for svc in found:
                if why is None:
                    behind.append(svc)
                # review49: the ports it routes to this Service, not to any backend (shared with SW306)
                targets: list[Any] = routed_targets(ing, svc)
                settings: _SettingPorts | None = None  # built once per Service, where a port needs it
                for target in targets:
                    try:
                        port, _ = resolve_target_port(inv, svc, target)
                    except Undecidable as u:
                        undecided = undecided or u
                        continue
                    if port is None:
                        continue
                    verdict: tuple[str, str] | Undecidable | None = None
                    if port not in RUNTIME_PORTS:  # judged as the Service path judges it (mend28)
                        settings = settings or _SettingPorts(inv, svc)
                        verdict = settings.judge(port)
                        if verdict is None:
                            continue
                    if why is not None:
                        # whether the route sends there is not known yet (its backendRef's namespace a template fills,
                        # a grant's value a preview computes): a runtime port behind it is undecided, never silent
                        undecided = undecided or why
                    elif isinstance(verdict, Undecidable):
                        undecided = undecided or verdict
                        verdict = None  # held by one local only: the raised value's traceback holds this frame
                    elif verdict is not None:
                        if not _runs_other_program(inv, svc):
                            set_by.setdefault(port, verdict)
                    else:
                        exposed.add(port)
                        if svc not in via.setdefault(port, []):
                            via[port].append(svc)
        if not exposed and not set_by and UNKNOWN in ing.ports:
            raise Undecidable(f"a backend of {ing.kind} `{ing.name}`")
        if not exposed and not set_by and undecided is not None:
            try:
                raise undecided
            finally:  # not kept in this frame, which the raised value's traceback holds: no reference cycle
                undecided = None
        for port in sorted(set_by):  # review33, mend28: the selected pods' settings say the runtime listens there
            what, release = set_by[port]
            yield hit(ing, f"{ing.kind} `{ing.namespace}/{ing.name}` routes outside traffic to port {port} ({what}); "
                           f"{_INGRESS_REMEDY}" + (f" (advisory: {release})" if release else ""),
                      level="advisory" if release else None)
        for port in sorted(exposed):
            # each Service that sends there judged by itself (review29): one whose pods are in the inputs and run no
            # runtime does not answer for another whose pods are not in the inputs, nor a vLLM group's for Grafana's
            # the Services it sends to that hold it: one this port is routed to (review49: every backend was, so an
            # oauth2-proxy's Service port 8265 made the Ray head's Service beside it answer for its dashboard)
            services = via.get(port) or [s for s in behind if port in routed_ports(ing, s)
                                         or UNKNOWN in routed_ports(ing, s) or not routed_ports(ing, s)]
            if not services and undecided is not None:
                try:  # the only Services it may send there to are not known to be its backends
                    raise undecided
                finally:  # not kept in this frame, which the raised value's traceback holds: no reference cycle
                    undecided = None
            if missing and not via.get(port) and not any(port in s.ports for s in behind):  # review46: the Service
                # it routes the port to is not in the inputs, so neither is what serves it (as a Service whose pods are
                # not in the inputs: advisory, never silent; nor judged by another backend's pods)
                names = ", ".join(f"`{n}`" for n in missing)
                yield hit(ing, f"{ing.kind} `{ing.namespace}/{ing.name}` routes outside traffic to port {port}: port "
                               f"{port} is {RUNTIME_PORTS[port]}'s default; the Service it routes to ({names}) is not "
                               "in the input, so what serves it is not known; lint it together with that Service and "
                               f"the workload whose pods it selects; if they run {_runtime_of(port)}, "
                               f"{_INGRESS_REMEDY}", level="advisory")
                continue
            picked = [_what_it_selects(inv, [svc], port) for svc in services]
            runtime = any(p[0] for p in picked)
            unsure = any(p[2] for p in picked)
            others = list(dict.fromkeys(o for p in picked for o in p[1]))
            hidden = list(dict.fromkeys(i for p in picked for i in p[3]))
            absent = any(not (p[0] or p[1] or p[2]) for p in picked)
            named = any(_named_so(svc, port, "") and not (port in RAY_PORTS and _ray_nodes_known(inv, svc, port))
                        for svc in services)
            if not (runtime or named or unsure):
                if absent:
                    yield hit(ing, f"{ing.kind} `{ing.namespace}/{ing.name}` routes outside traffic to port {port}: "
                                   f"{_absent_text(port)}; {_absent_remedy(port)}", level="advisory")
                elif hidden:
                    yield hit(ing, f"{ing.kind} `{ing.namespace}/{ing.name}` routes outside traffic to port {port}: "
                                   f"{_hidden_text(port, hidden, 'routes to')}; {_hidden_remedy(port, ingress=True)}",
                        level="advisory")
                continue
            yield hit(
                ing,
                f"{ing.kind} `{ing.namespace}/{ing.name}` routes outside traffic to port {port} "
                f"({_port_text(port, runtime or named, others, unsure)}); {_INGRESS_REMEDY}",
            )


#: The port names that say a Ray default port is Ray's (mend7): only a name of Ray's own. KubeRay names the head's
#: ports ``client`` (10001), ``gcs-server`` (6379), ``dashboard`` (8265), ``metrics`` (8080) and ``serve`` (8000)
#: (ray-project/kuberay v1.7.0 ``ray-operator/controllers/ray/utils/constant.go``: ClientPortName, GcsServerPortName,
#: DashboardPortName, MetricsPortName, ServingPortName; ``redis`` for 6379 before v1.3.0, RedisPortName). Of those,
#: ``gcs-server`` is Ray's word (its Global Control Service), and so is ``gcs``; ``client``, ``dashboard``,
#: ``metrics``, ``serve`` and ``redis`` are words any program names its ports with (a web application's
#: ``dashboard``, Redis's ``redis``), no sign by themselves that Ray runs there. A name with the word ``ray`` or
#: ``raylet`` in it (``ray-client``, ``ray-dashboard``, ``ray-gcs``, ``ray_head``) is Ray's too.
_RAY_PORT_NAMES = frozenset({"gcs", "gcs-server"})
_RAY_PORT_WORDS = frozenset({"ray", "raylet"})
#: The kinds whose pods run Ray.
_RAY_KINDS = ("RayCluster ", "RayService ", "RayJob ")
#: The words of a port name that say a torch.distributed, NCCL or vLLM runtime port is theirs (``dist``,
#: ``torch-dist``, ``master``, ``c10d``, ``dp-rpc``, ``nixl``, ``kv-transfer``, ``mooncake-bootstrap``; Kubeflow's
#: training operator names the master's ``pytorchjob-port``).
_DIST_PORT_WORDS = frozenset({
    "dist", "distributed", "torch", "pytorch", "pytorchjob", "torchrun", "c10d", "master", "rdzv", "rendezvous",
    "nccl", "gloo", "dp", "rpc", "kv", "kvt", "nixl", "mooncake", "bootstrap", "side", "sidechannel"})
#: The label prefixes of a selector that say which runtime the pods run: KubeRay's (``ray.io/node-type``) for Ray;
#: Kubeflow's training operator's (``training.kubeflow.org/job-name``), LeaderWorkerSet's and JobSet's for a process
#: group.
_RAY_LABELS = ("ray.io/",)
_DIST_LABELS = ("training.kubeflow.org/", "leaderworkerset.sigs.k8s.io/", "jobset.sigs.k8s.io/")


def _names_runtime(name: str, port: int) -> bool:
    """Whether a port name says the runtime whose default ``port`` is serves it (:data:`_RAY_PORT_NAMES`, or a word
    of :data:`_RAY_PORT_WORDS`, for a Ray port; a word of :data:`_DIST_PORT_WORDS` for the others)."""
    words = re.split(r"[-_.\s]+", name.strip().lower())
    if port in RAY_PORTS:
        return name.strip().lower() in _RAY_PORT_NAMES or any(w in _RAY_PORT_WORDS for w in words)
    return any(w in _DIST_PORT_WORDS for w in words)


def _named_so(svc: Service, port: int, target: str) -> bool:
    """Whether the Service names ``port`` as the runtime's: its named targetPort, or the name of its port that sends
    there or that is that port, says the runtime (:func:`_names_runtime`: ``{name: gcs, port: 6379}``,
    ``{name: dist, port: 29500}``)."""
    targets = {str(port)}
    if len(svc.ports) == len(svc.target_ports):
        targets.update(str(t).strip() for p, t in zip(svc.ports, svc.target_ports, strict=True) if p == port)
    return _names_runtime(target, port) or any(
        _names_runtime(str(n), port) and str(t).strip() in targets for n, t in svc.port_names.items())


def _what_it_selects(inv: Inventory, services: list[Service], port: int) -> tuple[bool, list[str], bool, list[str]]:
    """(whether the input says the runtime whose default ``port`` is runs behind the Services: they select the pods of
    a vLLM serving group of the inputs, or may (a selector or labels not known yet), or, for a Ray port, of a Ray
    custom resource or of a workload whose image or command runs Ray (:attr:`PodPorts.ray`), for another runtime port
    of a workload whose env, image or command runs torch.distributed or vLLM (:attr:`PodPorts.dist`: a PyTorchJob, a
    multi-node LeaderWorkerSet), or that names its container port of that number so (:func:`_names_runtime`:
    ``gcs-server``, ``dist``), or their selector names the runtime's operator's label (``ray.io/``,
    ``training.kubeflow.org/``); the workloads of the inputs whose pods
    they select otherwise, by subject, none of which runs it; whether a Service's selector, or a pod it may select's
    labels, image, command or env, is not known yet, or a pod it selects serves a model with an engine shardwise does
    not recognise (which may be vLLM); for a Ray port, the images of those workloads that run their image's own
    entrypoint (:attr:`PodPorts.entrypoints`: what they run the input does not show, mend7). What names the service on
    a runtime port: the number alone does not (6379 is Redis's port as well as Ray GCS's default, 29500 a web
    application's as well as torch.distributed's)."""
    ray = port in RAY_PORTS
    others: list[str] = []
    hidden: list[str] = []
    unsure = False
    unrecognised: set[str] = set()
    if not ray:
        unrecognised = {li.subject for li in inv.launch_issues if li.other_engine == UNRECOGNISED_ENGINE}
    served: set[str] = set()  # the pods of vLLM serving groups whose settings open no such port (not ray)
    for svc in services:
        try:
            chosen = [g for g in selectable(inv, svc) if selects(svc, g)]
        except Undecidable:
            return True, [], False, []
        for g in chosen:
            opens = _ray_listens(inv, svc, g, port) if ray else _opens(g, port)
            if opens is True:
                return True, [], False, []
            if opens is UNKNOWN:
                unsure = True
            subject = _subject(g)
            served.add(subject)
            if opens is False and subject not in others:  # in the inputs, and its settings open no such port
                others.append(subject)
        selector = svc.selector
        if is_unknown(selector):  # which pods it selects is not known yet: fail closed
            unsure = True
            continue
        if not isinstance(selector, dict) or not selector:
            continue
        # a Ray operator's label says Ray listens there, unless the Ray nodes it selects are known not to (mend11: a
        # worker's head-only port; review37: a head whose flags put Ray elsewhere or keep its dashboard on loopback)
        if ray and any(str(k).startswith(_RAY_LABELS) for k in selector) and (
                selector.get("ray.io/node-type") != "worker" or port not in _RAY_HEAD_ONLY) and (
                not _ray_nodes_known(inv, svc, port)):
            return True, [], False, []
        present = bool(chosen)  # whether pods it selects are in the inputs
        for p in selectable_pods(inv, svc):
            if not isinstance(p.labels, dict):
                unsure = True
                continue
            if p.namespace != svc.namespace or not all(p.labels.get(k) == v for k, v in selector.items()):
                continue
            present = True
            # a vLLM server's pod says vLLM runs there (its image, `vllm serve`, NCCL_* env): its settings say
            # which runtime ports it opens (_opens), read above
            says = p.ray if ray else (False if p.subject in served else p.dist)
            if isinstance(says, frozenset):  # the ports its env or kind fix (mend9: NCCL_COMM_ID's, MASTER_PORT)
                says = port in says
            elif isinstance(says, RayPins):  # a ray start flag not read: every default port Ray's (mend25)
                says = True
            # a port's name says the runtime listens there, unless the pod is a Ray node whose ports its flags fix
            # (mend24: a KubeRay worker's, or a head's of another number than its --port, `gcs-server`: nothing)
            named = not (ray and isinstance(p.ray, frozenset)) and any(
                number == port and _names_runtime(str(n), port) for n, number in p.named.items())
            if says is True or (ray and p.subject.startswith(_RAY_KINDS) and not isinstance(p.ray, frozenset)) or named:
                return True, [], False, []
            if says is UNKNOWN or p.subject in unrecognised:
                unsure = True
            else:
                if p.subject not in others:
                    others.append(p.subject)
                # its image's own entrypoint may start the runtime (mend7 for Ray; mend11 for the others too: a
                # custom image's entrypoint may be a torchrun); a vLLM group's pod is judged on its settings (_opens)
                for image in p.entrypoints if (ray or p.subject not in served) else ():
                    if image not in hidden:
                        hidden.append(image)
        # the operator's label says what runs there only where its pods are not in the inputs (mend9): a multi-node
        # LeaderWorkerSet's pods in the inputs open their own ports (_opens, PodPorts.dist), not every runtime port
        if not ray and not present and any(str(k).startswith(_DIST_LABELS) for k in selector):
            return True, [], False, []
    return False, others, unsure, hidden


#: Ray's default ports only a head listens on (its GCS, dashboard and client servers); every Ray node, a worker too,
#: runs a dashboard agent on 52365 (mend11; :data:`~shardwise.rules.adapters.k8s.workloads.RAY_START_PORTS`).
_RAY_HEAD_ONLY = frozenset({6379, 8265, 10001})


def _ray_listens(inv: Inventory, svc: Service, g: ServingGroup, port: int) -> bool:
    """Whether Ray listens on ``port`` in the pods of serving group ``g`` that ``svc`` selects (mend11): True unless
    every such pod of the inputs runs a ``ray start`` whose ports are known (:attr:`PodPorts.ray` a frozenset: a
    KubeRay worker's, or a head's at the ports its settings choose) and none listens there."""
    subject = _subject(g)
    selector = svc.selector
    if not isinstance(selector, dict) or not selector:
        return True
    found = False
    for p in selectable_pods(inv, svc):
        if p.subject != subject or p.namespace != svc.namespace or not isinstance(p.labels, dict):
            continue
        if not all(p.labels.get(k) == v for k, v in selector.items()):
            continue
        if not isinstance(p.ray, frozenset) or port in p.ray:
            return True
        found = True
    return not found


def _ray_worker_port(inv: Inventory, svc: Service, port: int) -> tuple[str, str] | None:
    """(what listens there, why it is not sure or "") where ``port`` is in the default range Ray's workers take their
    ports from on a pod ``svc`` selects whose ``ray start`` flags pin none (:attr:`PodPorts.ray_workers`, mend24;
    :data:`~shardwise.rules.adapters.k8s.workloads.RAY_DEFAULT_WORKERS`: the raylet hands them out in turn, so every
    port of the range is a worker's gRPC server's sooner or later); not sure where a container of that pod declares
    the port (another program of the pod may hold it, and the raylet skips a port in use). Never sure (mend26): a
    program the pod runs may bind the port without declaring it (``ray start --head && vllm serve … --port 12000``,
    an oauth2-proxy sidecar's ``--http-address=0.0.0.0:14180``), and the raylet hands out only the ports that are
    free (ray-project/ray src/ray/raylet/worker_pool.cc ``GetNextFreePort``, ``CheckPortFree``); None where a vLLM
    server the Service selects listens on ``port`` (its ``--port``): that is its API port, not a worker's. None
    elsewhere."""
    selector = svc.selector
    if not isinstance(selector, dict) or not selector:
        return None
    if _vllm_api_port(inv, svc, port):
        return None
    found: tuple[str, str] | None = None
    for p in selectable_pods(inv, svc):
        if p.namespace != svc.namespace or not isinstance(p.labels, dict) or p.ray_workers is None:
            continue
        if not all(p.labels.get(k) == v for k, v in selector.items()):
            continue
        low, high = p.ray_workers
        if not low <= port <= high:
            continue
        what = (f"in the range Ray's workers take their ports from: ray start's workers bind the ports {low}-{high} by "
                "default, each in its turn, and its flags pin no other (--min-worker-port, --max-worker-port, "
                "--worker-port-list)")
        if port in p.named.values():
            return what, ("a container of its pods declares the port, and the raylet skips a port another program "
                          "holds")
        found = found or (what, "a Ray worker may take it where nothing else of its pods listens there; the raylet "
                                "skips a port another program holds, so pin the workers' ports with --min-worker-port "
                                "and --max-worker-port to be sure")
    return found


def _vllm_api_port(inv: Inventory, svc: Service, port: int) -> bool:
    """Whether a vLLM serving group ``svc`` selects listens for its API on ``port`` (its ``--port``; vLLM's 8000 where
    not given, vllm/entrypoints/openai/cli_args.py ``FrontendArgs.port``)."""
    try:
        chosen = [g for g in selectable(inv, svc) if selects(svc, g)]
    except Undecidable:
        return False
    return any((8000 if g.engine.port is None else g.engine.port) == port for g in chosen)


def _ray_nodes_known(inv: Inventory, svc: Service, port: int) -> bool:
    """Whether the pods ``svc`` selects are in the inputs and all Ray nodes whose Ray ports are known
    (:attr:`PodPorts.ray` a frozenset: a KubeRay worker, a ``ray start`` of known flags), none of them listening on
    ``port`` (mend11)."""
    selector = svc.selector
    if not isinstance(selector, dict) or not selector:
        return False
    found = False
    for p in selectable_pods(inv, svc):
        if not isinstance(p.labels, dict):
            return False
        if p.namespace != svc.namespace or not all(p.labels.get(k) == v for k, v in selector.items()):
            continue
        if not isinstance(p.ray, frozenset) or port in p.ray:
            return False
        found = True
    return found


#: vLLM's runtime ports by what opens them (vllm v0.11.0 vllm/config/parallel.py, ParallelConfig: master_port 29501
#: for the native multi-node launcher, data_parallel_master_port 29500 and data_parallel_rpc_port 29550 for data
#: parallelism; vllm/config/kv_transfer.py KVTransferConfig.kv_port 14579; vllm/envs.py VLLM_NIXL_SIDE_CHANNEL_PORT
#: 5600 and VLLM_MOONCAKE_BOOTSTRAP_PORT 8998, opened by their KV connectors). What listens there (review33, read in
#: the 0.11.0, 0.12.0 and 0.19.0 sources): --nnodes above 1 makes torch.distributed's process group on master_port
#: (vllm/distributed/parallel_state.py init_distributed_environment; entrypoints/cli/serve.py, the headless nodes);
#: a data-parallel size above 1 given to vLLM takes its data-parallel master ports from free ones
#: (ParallelConfig.__post_init__: ``get_open_ports_list(5)``), never 29500, and shakes hands on data_parallel_rpc_port
#: only where its engines are not all on one node (vllm/v1/engine/utils.py launch_core_engines:
#: ``handshake_local_only = offline_mode or local_engine_count == dp_size``, else an IPC path); a group of several
#: pods without --nnodes runs the Ray executor, whose process group takes a free port (v1/executor/ray_executor.py:
#: ``get_distributed_init_method(driver_ip, get_open_port())``) and whose own ports are Ray's. 29500 is
#: torch.distributed's where a launcher (torchrun) or the env (MASTER_PORT, VLLM_DP_MASTER_PORT) puts it there. A
#: one-node server of one data-parallel rank and no KV connector opens none: its own process group takes a free port.
_KV_PORTS = frozenset({5600, 8998, 14579})
#: The settings (EngineArgs.extra keys, vLLM's flags) and env names that open them: the data-parallel flags of a
#: data-parallel group across nodes (its RPC port, 29550), the multi-node launcher's (its master port, 29501),
#: ``--master-port`` (whatever its number, 29500 too), a KV connector's.
_DP_EXTRAS = ("data_parallel_size_local", "data_parallel_address", "data_parallel_rpc_port",
              "data_parallel_start_rank", "data_parallel_rank", "data_parallel_hybrid_lb",
              "data_parallel_external_lb", "headless")
_MULTI_NODE_EXTRAS = ("master_port", "master_addr", "node_rank", "headless")
_STORE_EXTRAS = ("master_port", "data_parallel_master_port")
_KV_EXTRAS = ("kv_transfer_config", "kv_connector")
#: The KV-transfer ports each of vLLM's KV connectors opens (review33; vllm 0.19.0 and 0.29.0
#: distributed/kv_transfer/kv_connector/factory.py and the connectors it registers): NIXL's side channel
#: (VLLM_NIXL_SIDE_CHANNEL_PORT, 5600: nixl_connector.py, nixl/base_scheduler.py), Mooncake's bootstrap
#: (VLLM_MOONCAKE_BOOTSTRAP_PORT, 8998: mooncake/mooncake_connector.py), the P2P NCCL engine's kv_port (14579:
#: p2p/p2p_nccl_engine.py; PyNcclConnector before V1). The connectors that store or offload the cache (LMCache's,
#: the offloading, shared-storage, FlexKV, HF3FS and Mooncake-store ones) and MoRIIO (its own handshake and notify
#: ports, 6301 and 61005: :data:`_MORIIO_PORTS`, read as ports a setting chooses) open none of them. A connector
#: not named here (a module of its own, a name of another project's) may open any: all three, as before.
_KV_CONNECTOR_PORTS: dict[str, frozenset[int]] = {
    **dict.fromkeys(("NixlConnector", "NixlPullConnector", "NixlPushConnector"), frozenset({5600})),
    "MooncakeConnector": frozenset({8998}),
    **dict.fromkeys(("P2pNcclConnector", "PyNcclConnector"), frozenset({14579})),
    **dict.fromkeys((
        "LMCacheConnectorV1", "LMCacheConnector", "LMCacheMPConnector", "OffloadingConnector", "SharedStorageConnector",
        "ExampleConnector", "ExampleHiddenStatesConnector", "DecodeBenchConnector", "FlexKVConnectorV1",
        "SimpleCPUOffloadConnector", "HF3FSKVConnector", "MooncakeStoreConnector", "MoRIIOConnector"), frozenset()),
}
#: The env prefix of each KV connector's port.
_KV_ENV: dict[int, tuple[str, ...]] = {5600: ("VLLM_NIXL_",), 8998: ("VLLM_MOONCAKE_",), 14579: ()}


def _kv_config(config: Any) -> dict[str, Any] | None:
    """The object a --kv-transfer-config value holds (its JSON, read here only: a one-file lint without one imports
    no json); None where it is not known yet or holds no JSON object."""
    if isinstance(config, dict):
        return config
    if not isinstance(config, str):
        return None
    import json

    try:
        parsed = json.loads(config)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


#: MoRIIO's own ports (mend11; vllm-project/vllm kv_connector/v1/moriio: moriio_common.py MoRIIOConstants
#: DEFAULT_HANDSHAKE_PORT "6301" and DEFAULT_NOTIFY_PORT "61005", which moriio_connector.py fills into
#: kv_connector_extra_config where it names none; MoRIIOConfig.from_vllm_config reads ``handshake_port`` and
#: ``notify_port`` there): the handshake between the prefill's and the decode's MoRI engines and the stage
#: notifications. The first rank listens on the number itself; the others on it plus their rank's offset
#: (:func:`_moriio_rank_offsets`).
_MORIIO_PORTS = {
    "handshake_port": "vLLM MoRIIO KV connector handshake (kv_connector_extra_config handshake_port, 6301 by default)",
    "notify_port": "vLLM MoRIIO KV connector notify (kv_connector_extra_config notify_port, 61005 by default)",
}
_MORIIO_DEFAULTS = {"handshake_port": 6301, "notify_port": 61005}


def _moriio_ports(named: Any, parsed: dict[str, Any] | None) -> list[tuple[str, int]]:
    """(setting, port) of each MoRIIO KV connector a vLLM group runs (:data:`_MORIIO_PORTS`; a MultiConnector's too):
    the number its ``kv_connector_extra_config`` gives, else the default; none where a value is not a port number
    (not known yet: judged on nothing here, as the other settings are)."""
    configs: list[Any] = []
    connector = parsed.get("kv_connector", named) if isinstance(parsed, dict) else named
    if connector == "MoRIIOConnector":
        configs.append(parsed.get("kv_connector_extra_config") if isinstance(parsed, dict) else None)
    elif connector == "MultiConnector" and isinstance(parsed, dict):
        inner = parsed.get("kv_connector_extra_config")
        for c in inner.get("connectors") or () if isinstance(inner, dict) else ():
            if isinstance(c, dict) and c.get("kv_connector") == "MoRIIOConnector":
                configs.append(c.get("kv_connector_extra_config"))
    found: list[tuple[str, int]] = []
    for config in configs:
        given = config if isinstance(config, dict) else {}
        for key, default in _MORIIO_DEFAULTS.items():
            number = _port_number(given.get(key) or default)
            if number is not None:
                found.append((key, number))
    return found


def _moriio_rank_offsets(g: ServingGroup) -> range:
    """The offsets from a MoRIIO base port that the group's ranks listen on (review37; vllm-project/vllm
    kv_connector/v1/moriio at 028a39c2 and 6fbdff48: moriio_common.py ``get_port_offset(dp_rank, tp_rank)``, which
    with its default ``tp_size=1`` is ``dp_rank + tp_rank``; each worker's handshake listener binds ``handshake_port
    + get_port_offset(dp_rank, tp_rank)`` (moriio_connector.py ``side_channel_port``) and its notify socket
    ``notify_port + port_offset`` (``MoRIIOConfig.from_vllm_config``)): 0 to (data-parallel size - 1) +
    (tensor-parallel size - 1). Only the base where a size is not known yet (judged there; a port above it then
    cannot be decided, :func:`_moriio_ports_unsure`, :func:`_moriio_dp_unknown`)."""
    tp, dp = g.engine.tensor_parallel_size, g.engine.data_parallel_size
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in (tp, dp)):
        return range(1)
    return range(tp + dp - 1)


def _moriio_ports_unsure(groups: list[ServingGroup]) -> dict[int, tuple[str, tuple[str, str] | None]]:
    """The ports a MoRIIO KV connector's ranks may take (of the serving ``groups`` a Service selects), above those
    :func:`ports_set_by_settings` names, where the group's --tensor-parallel-size is not known yet (a guide's
    ``<TP_SIZE>``, a start script's ``${TP}``) and the GPUs of its pod bound it
    (:func:`..capacity.group.most_tp_unseen`), each with what is not known (review42: a decode server at ``<TP_SIZE>``
    behind a NodePort publishing 6303 passed in silence, its ranks' ports judged at TP1 only, though four GPUs allow TP4
    and its ranks' handshake on 6301-6304). Where TP is not bounded, none (the base ports are judged); where the
    data-parallel size is not known, none here (:func:`_moriio_dp_unknown` says so). Where the size is a variable a
    Secret or a ConfigMap not in the inputs sets (:func:`_size_unread`), it is no unknown and the port only possibly a
    rank's (mend30): each then with what an advisory finding says (what may listen there, why it is not sure), else
    None."""
    found: dict[int, tuple[str, tuple[str, str] | None]] = {}
    for g in groups:
        tp, dp = g.engine.tensor_parallel_size, g.engine.data_parallel_size
        if tp is not UNKNOWN or isinstance(dp, bool) or not isinstance(dp, int) or dp < 1:
            continue
        most = most_tp_unseen(g)
        if most < 2:
            continue
        subject, unread = _subject(g), _size_unread(g, "tensor_parallel_size")
        for setting, moriio_port in _moriio_bases(g):
            for offset in range(dp, dp + most - 1):  # the offsets a TP from 2 to `most` adds above TP1's
                rank_port = moriio_port + offset
                if rank_port not in RUNTIME_PORTS and rank_port < 65536:
                    what = (f"MoRIIO KV connector {setting.removesuffix('_port')} of a rank, {setting} {moriio_port} "
                            f"+ {offset}, at a TP of {offset - dp + 2} or more, which its {most} GPUs allow")
                    maybe = None if not unread else (
                        f"possibly vLLM's {what}",
                        f"the --tensor-parallel-size of {subject} is the variable {unread}, which a Secret or a "
                        f"ConfigMap not in the inputs sets, so whether a rank listens on {rank_port} is not sure; "
                        f"write --tensor-parallel-size in the manifest to decide")
                    found.setdefault(rank_port, (
                        f"tensor_parallel_size of {subject} (port {rank_port} is its MoRIIO KV connector's "
                        f"{setting.removesuffix('_port')} of a rank, {setting} {moriio_port} + {offset}, at a TP of "
                        f"{offset - dp + 2} or more, which its {most} GPUs allow)", maybe))
    return found


#: A size flag whose whole value is a reference to a variable (``--data-parallel-size ${DP}``, ``-tp=$(TP)``,
#: ``--tensor-parallel-size "$TP"``, ``-pp $PP``): group 1 the flag, groups 2 to 4 the variable.
_SIZE_REF = re.compile(r"(?:^|\s)(--data-parallel-size|-dp|--tensor-parallel-size|-tp|--pipeline-parallel-size|-pp)"
                       r"(?:=|\s+)[\"']?"
                       r"\$(?:\(([A-Za-z_][A-Za-z0-9_]*)\)|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))"
                       r"[\"']?(?=\s|$)")
_SIZE_FLAGS = {"data_parallel_size": ("--data-parallel-size", "-dp"),
               "tensor_parallel_size": ("--tensor-parallel-size", "-tp"),
               "pipeline_parallel_size": ("--pipeline-parallel-size", "-pp")}


def _size_unread(g: ServingGroup, field: str) -> str:
    """The variable (``DP``) whose value the group's ``field`` (``data_parallel_size``, ``tensor_parallel_size``,
    ``pipeline_parallel_size``) is, where that variable comes from a Secret, a ConfigMap not in the inputs or the
    downward API (a ``valueFrom``, or an ``envFrom`` that sets what its ``env`` does not): a value the input does not
    show, not one that does not exist yet (DESIGN.md, "Unknown, and what is not"; mend30). "" where the size is not
    known yet (a preview's computed value, a template placeholder such as ``<DP_SIZE>`` or an envsubst ``${DP}`` no
    variable of the pod sets, an env list not known yet) or not written so."""
    flags = _SIZE_FLAGS[field]
    for c in g.containers:
        if isinstance(c.env, UnknownEnv):
            continue
        words = " ".join(w for w in (*c.command, *c.args) if isinstance(w, str))
        for m in _SIZE_REF.finditer(words):
            if m.group(1) not in flags:
                continue
            name = m.group(2) or m.group(3) or m.group(4)
            if name in c.env:
                if c.env[name] is UNKNOWN and c.env_written.get(name) != UNKNOWN_TOKEN:
                    return name  # a valueFrom (or a value built on one) the input does not resolve
            elif c.env_from:
                return name  # an envFrom Secret's or a ConfigMap's not in the inputs
    return ""


def _moriio_dp_unknown(groups: list[ServingGroup]) -> list[tuple[int, str, str, str]]:
    """(base port, setting, group, the variable it reads or "") of each MoRIIO KV connector of ``groups`` (a Service's)
    whose --data-parallel-size is not known (a preview's computed output, a chart's ``{{ .Values.dp }}`` left
    unrendered, a guide's ``<DP_SIZE>``; or a start script's ``${DP}`` that a Secret or a ConfigMap not in the inputs
    sets, :func:`_size_unread`): its ranks listen on the base plus their data-parallel rank plus their tensor-parallel
    rank (:func:`_moriio_rank_offsets`), and the data-parallel rank is the engine's rank among all of them, not among
    its pod's, so any port above the base may be a rank's (mend28: it was judged at DP 1, its base ports only, as if
    vLLM's default were the value)."""
    found: list[tuple[int, str, str, str]] = []
    for g in groups:
        if g.engine.data_parallel_size is not UNKNOWN:
            continue
        subject, unread = _subject(g), _size_unread(g, "data_parallel_size")
        for setting, moriio_port in _moriio_bases(g):
            found.append((moriio_port, setting, subject, unread))
    return found


def _moriio_bases(g: ServingGroup) -> list[tuple[str, int]]:
    """The (setting, base port) of the MoRIIO KV connector of group ``g`` (:func:`_moriio_ports`), none without one."""
    extra = g.engine.extra
    return _moriio_ports(extra.get("kv_connector"), _kv_config(extra.get("kv_transfer_config")))


def _subject(g: ServingGroup) -> str:
    """The workload of serving group ``g`` as findings and :attr:`PodPorts.subject` name it (``Deployment ns/name``)."""
    return object_subject(g.kind, g.name.split(":")[0], g.namespace)


#: The last vLLM release whose NIXL workers each listen on a side-channel port of their own (mend24; read in the
#: 0.11.0 wheel, vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py: NixlConnectorWorker's
#: ``side_channel_port = VLLM_NIXL_SIDE_CHANNEL_PORT + data_parallel_rank * tensor_parallel_size`` and its
#: ``_nixl_handshake_listener`` binding ``base_port + tp_rank``). From 0.11.1 (read in 0.11.1, 0.11.2, 0.12.0 and
#: 0.19.0) one listener per engine, the scheduler's, binds ``VLLM_NIXL_SIDE_CHANNEL_PORT + data_parallel_rank``
#: (0.19.0: ``+ data_parallel_index``, which ParallelConfig sets to the data-parallel rank).
_NIXL_PER_WORKER_UNTIL = (0, 11, 0)
#: The last vLLM release whose Mooncake workers each listen on a side-channel port of their own (mend24; read in the
#: 0.15.0 and 0.15.1 wheels, kv_connector/v1/mooncake_connector.py: ``get_mooncake_side_channel_port`` is
#: ``VLLM_MOONCAKE_BOOTSTRAP_PORT + data_parallel_index * tensor_parallel_size`` and each worker's listener binds
#: ``base_port + tp_rank``). From 0.16.0 (read in 0.16.0, 0.17.0, 0.18.0 and 0.19.0, mooncake/mooncake_connector.py)
#: a bootstrap server of the first local rank binds the base alone and the workers bind ports ZMQ picks
#: (``bind_to_random_port``).
_MOONCAKE_PER_WORKER_UNTIL = (0, 15, 1)


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None


def _kv_rank_ports(g: ServingGroup, extra: dict[str, Any], env: dict[str, Any]) -> list[tuple[int, str, str]]:
    """(port, what listens there, why it is not sure or "") of each KV-transfer port a rank of the group listens on
    beside its connector's base (mend24: only the base was counted):

    - NIXL: every release binds the base plus each data-parallel rank (0 to the data-parallel size - 1), sure;
      releases through 0.11.0 bind the base plus each worker's data-parallel rank × the tensor-parallel size plus its
      tensor-parallel rank, up to the data-parallel size × the tensor-parallel size - 1
      (:data:`_NIXL_PER_WORKER_UNTIL`): sure where the group's release is one of those, not counted where it is
      later, and not sure (advisory) where the release is assumed.
    - P2P NCCL: each worker's engine binds kv_port plus its rank in the world of all data-parallel ranks (0.11.0,
      0.12.0, 0.19.0 p2p/p2p_nccl_connector.py ``port_offset=get_world_group().rank``, which
      parallel_state.init_distributed_environment offsets by ``data_parallel_rank * world_size``): up to the
      data-parallel size × the tensor-parallel size × the pipeline-parallel size - 1.
    - Mooncake: releases through 0.15.1 bind the base plus each worker's data-parallel rank × the tensor-parallel
      size plus its tensor-parallel rank (:data:`_MOONCAKE_PER_WORKER_UNTIL`), judged by the release as NIXL's
      workers are; later ones bind the base alone (their workers take ports ZMQ picks).

    Only the ports the sizes known as whole numbers decide (NIXL's data-parallel ranks' need DP alone); where one a
    port depends on is not known, :func:`_kv_sizes_unknown` says what may listen above the base."""
    e = g.engine
    tp, dp, pp = _whole(e.tensor_parallel_size), _whole(e.data_parallel_size), _whole(e.pipeline_parallel_size)
    if not any(k in extra for k in _KV_EXTRAS):
        return []
    opens = kv_connector_ports(extra)
    found: list[tuple[int, str, str]] = []
    if 5600 in opens and dp is not None:  # the data-parallel ranks' ports need DP alone (mend32)
        base = _port_number(env.get("VLLM_NIXL_SIDE_CHANNEL_PORT")) or 5600
        named = (f"VLLM_NIXL_SIDE_CHANNEL_PORT {base}" if "VLLM_NIXL_SIDE_CHANNEL_PORT" in env
                 else f"VLLM_NIXL_SIDE_CHANNEL_PORT's default {base}")
        for k in range(1, min(dp, 65536 - base)):  # a port number stops at 65535 (an absurd size: no loop)
            found.append((base + k, f"vLLM NIXL side channel of data-parallel rank {k} ({named} + {k})", ""))
        if tp is not None and tp > 1:
            found += _per_worker_ports(g, base, range(dp, min(dp * tp, 65536 - base)), _NIXL_PER_WORKER_UNTIL,
                                       "NIXL side channel", named, tp)
    if 8998 in opens and dp is not None and tp is not None and dp * tp > 1:
        base = _port_number(env.get("VLLM_MOONCAKE_BOOTSTRAP_PORT")) or 8998
        named = (f"VLLM_MOONCAKE_BOOTSTRAP_PORT {base}" if "VLLM_MOONCAKE_BOOTSTRAP_PORT" in env
                 else f"VLLM_MOONCAKE_BOOTSTRAP_PORT's default {base}")
        found += _per_worker_ports(g, base, range(1, min(dp * tp, 65536 - base)), _MOONCAKE_PER_WORKER_UNTIL,
                                   "Mooncake side channel", named, tp)
    if 14579 in opens and dp is not None and tp is not None and pp is not None:
        parsed = _kv_config(extra.get("kv_transfer_config"))
        given = _port_number(parsed.get("kv_port")) if isinstance(parsed, dict) and "kv_port" in parsed else 14579
        if given is not None:
            named = (f"kv_port {given}" if isinstance(parsed, dict) and "kv_port" in parsed
                     else f"kv_port's default {given}")
            for k in range(1, min(dp * tp * pp, 65536 - given)):
                found.append((given + k, f"vLLM P2P NCCL KV transfer of worker rank {k} ({named} + {k})", ""))
    return found


def _per_worker_ports(g: ServingGroup, base: int, offsets: range, until: tuple[int, int, int], what: str, named: str,
                      tp: int) -> list[tuple[int, str, str]]:
    """The ports (above ``base``, at ``offsets``) that each worker of a KV connector bound in vLLM releases through
    ``until`` and later ones do not: sure where the group's release is one of those, none where it is later, not
    sure (the reason) where the release is assumed."""
    from ..capacity.group import vllm_version

    rv = vllm_version(g)
    if rv.source != "assumed" and rv.version.parts[:3] > until:
        return []
    last = ".".join(map(str, until))
    unsure = "" if rv.source != "assumed" else (
        f"vLLM {last} and earlier listen there and later releases do not; which release the pods run is not known "
        f"({rv.note})")
    return [(base + k, f"vLLM {what} of a tensor-parallel worker in vLLM {last} and earlier ({named} + {k}: the "
                       f"data-parallel rank × {tp} + the tensor-parallel rank)", unsure)
            for k in offsets]


#: The parallel sizes each KV connector's ranks offset their ports by (:func:`_kv_rank_ports`), in the order a
#: finding names them.
_KV_SIZES = ("data_parallel_size", "tensor_parallel_size", "pipeline_parallel_size")


def _kv_sizes_unknown(groups: list[ServingGroup]) -> list[tuple[int, int, str, str, list[tuple[str, str]], str]]:
    """(lowest port, highest port, what may listen there, group, [(size, the variable it reads or "")], why the
    release makes it not sure or "") of each NIXL, Mooncake or P2P NCCL KV connector of ``groups`` (a Service's) whose
    ranks' ports above the base (:func:`_kv_rank_ports`) depend on a data-parallel, tensor-parallel or
    pipeline-parallel size that is not known as a whole number (mend32: :func:`_kv_rank_ports` then counted none, so a
    Service port above the connector's base passed in silence, as MoRIIO's did before mend28). A size not known yet
    (a preview's computed output, a template's ``<DP_SIZE>``, an envsubst ``${DP}`` no variable of the pod sets) has
    the variable ""; one a Secret or a ConfigMap not in the inputs sets (:func:`_size_unread`) names it. The highest
    port is 65535 unless the sizes that are known and the GPUs of the pod bound an unknown TP
    (:func:`..capacity.group.most_tp_unseen`). A port only releases through :data:`_NIXL_PER_WORKER_UNTIL`
    (:data:`_MOONCAKE_PER_WORKER_UNTIL`) bind is counted where the group runs one of those or its release is
    assumed (then the reason)."""
    from ..capacity.group import vllm_version

    found: list[tuple[int, int, str, str, list[tuple[str, str]], str]] = []
    for g in groups:
        e = g.engine
        extra = e.extra
        dp_unknown, tp_unknown = e.data_parallel_size is UNKNOWN, e.tensor_parallel_size is UNKNOWN
        if not (dp_unknown or tp_unknown or e.pipeline_parallel_size is UNKNOWN):
            continue
        if not any(k in extra for k in _KV_EXTRAS):
            continue
        subject = _subject(g)
        opens = kv_connector_ports(extra)
        env: dict[str, Any] = {}
        for c in g.containers:
            env.update(c.env)
        dp, pp = _whole(e.data_parallel_size), _whole(e.pipeline_parallel_size)
        # the most ranks of one engine where only TP is not known and the pod's GPUs bound it, else 0 (no bound)
        most = most_tp_unseen(g)
        engine_ranks = most * (pp or 0)
        rv = vllm_version(g)
        if 5600 in opens:
            base = _port_number(env.get("VLLM_NIXL_SIDE_CHANNEL_PORT")) or 5600
            named = (f"VLLM_NIXL_SIDE_CHANNEL_PORT {base}" if "VLLM_NIXL_SIDE_CHANNEL_PORT" in env
                     else f"VLLM_NIXL_SIDE_CHANNEL_PORT's default {base}")
            if dp_unknown:  # every release: the base + the data-parallel rank
                found.append((base + 1, 65535, f"vLLM NIXL side channel of a data-parallel rank: {named} + its "
                              "data-parallel rank", subject, _sizes_unknown(g, ("data_parallel_size",)), ""))
            elif dp is not None and tp_unknown:
                why = _release_unsure(rv, _NIXL_PER_WORKER_UNTIL)
                if why is not None:  # through 0.11.0: the base + dp rank × TP + tp rank, above the base + DP - 1
                    found.append((base + dp, base + dp * most - 1 if most else 65535,
                                  "vLLM NIXL side channel of a tensor-parallel worker in vLLM 0.11.0 and earlier: "
                                  f"{named} + its data-parallel rank × the tensor-parallel size + its tensor-parallel "
                                  "rank", subject, _sizes_unknown(g, ("tensor_parallel_size",)), why))
        if 8998 in opens and (dp_unknown or tp_unknown):
            why = _release_unsure(rv, _MOONCAKE_PER_WORKER_UNTIL)
            base = _port_number(env.get("VLLM_MOONCAKE_BOOTSTRAP_PORT")) or 8998
            named = (f"VLLM_MOONCAKE_BOOTSTRAP_PORT {base}" if "VLLM_MOONCAKE_BOOTSTRAP_PORT" in env
                     else f"VLLM_MOONCAKE_BOOTSTRAP_PORT's default {base}")
            if why is not None:  # through 0.15.1: the base + dp rank × TP + tp rank
                found.append((base + 1, base + dp * most - 1 if dp is not None and most else 65535,
                              "vLLM Mooncake side channel of a tensor-parallel worker in vLLM 0.15.1 and earlier: "
                              f"{named} + its data-parallel rank × the tensor-parallel size + its tensor-parallel "
                              "rank", subject, _sizes_unknown(g, ("data_parallel_size", "tensor_parallel_size")),
                              why))
        if 14579 in opens:
            parsed = _kv_config(extra.get("kv_transfer_config"))
            given = _port_number(parsed.get("kv_port")) if isinstance(parsed, dict) and "kv_port" in parsed else 14579
            if given is not None:  # each worker: kv_port + its rank among DP × TP × PP
                named = (f"kv_port {given}" if isinstance(parsed, dict) and "kv_port" in parsed
                         else f"kv_port's default {given}")
                found.append((given + 1, given + dp * engine_ranks - 1 if dp is not None and engine_ranks else 65535,
                              f"vLLM P2P NCCL KV transfer of a worker rank: {named} + its rank", subject,
                              _sizes_unknown(g, _KV_SIZES), ""))
    return [f for f in found if f[4] and f[0] <= min(f[1], 65535)]


def _sizes_unknown(g: ServingGroup, fields: tuple[str, ...]) -> list[tuple[str, str]]:
    """(size, the variable a Secret or a ConfigMap not in the inputs sets it from, or "" where it is not known yet)
    of each of ``fields`` the group's engine does not know."""
    return [(f, _size_unread(g, f)) for f in fields if getattr(g.engine, f) is UNKNOWN]


def _release_unsure(rv: Any, until: tuple[int, int, int]) -> str | None:
    """None where the release ``rv`` is later than ``until``; else why a port only releases through ``until`` bind
    is not sure (the release is assumed), or "" where it is sure."""
    if rv.source != "assumed" and rv.version.parts[:3] > until:
        return None
    last = ".".join(map(str, until))
    return "" if rv.source != "assumed" else (
        f"vLLM {last} and earlier listen there and later releases do not; which release the pods run is not known "
        f"({rv.note})")


def kv_connector_ports(extra: dict[str, Any]) -> frozenset[int]:
    """The KV-transfer ports (of :data:`_KV_PORTS`) the group's KV connector opens (:data:`_KV_CONNECTOR_PORTS`; a
    MultiConnector the union of its connectors'); all of them where the configuration or a connector is not one
    shardwise can read (a value not known yet, a connector of its own)."""
    config = extra.get("kv_transfer_config")
    named = extra.get("kv_connector")
    parsed = _kv_config(config)
    if config is not None and parsed is None:  # not known yet, or no JSON object
        return _KV_PORTS
    if isinstance(parsed, dict):
        named = parsed.get("kv_connector", named)
    if not isinstance(named, str):
        return _KV_PORTS
    if named == "MultiConnector" and isinstance(parsed, dict):
        inner = parsed.get("kv_connector_extra_config")
        connectors = inner.get("connectors") if isinstance(inner, dict) else None
        if not isinstance(connectors, list) or not connectors:
            return _KV_PORTS
        found: set[int] = set()
        for c in connectors:
            name = c.get("kv_connector") if isinstance(c, dict) else None
            if not isinstance(name, str) or name not in _KV_CONNECTOR_PORTS:
                return _KV_PORTS
            found |= _KV_CONNECTOR_PORTS[name]
        return frozenset(found)
    return _KV_CONNECTOR_PORTS.get(named, _KV_PORTS)


def _opens(g: ServingGroup, port: int) -> Any:
    """Whether vLLM serving group ``g`` opens torch.distributed / vLLM runtime port ``port`` (not Ray's): True where
    its settings use what opens it (--nnodes above 1 or a multi-node flag for 29501; a data-parallel size above 1 in a
    group of more than one node or pod, or a data-parallel flag that spreads it over nodes, for 29550; --master-port
    for 29500; a KV connector (--kv-transfer-config) for 5600, 8998 and 14579 only (mend9: a multi-node group without
    one opens none of them); their VLLM_DP_*, VLLM_NIXL_*, VLLM_MOONCAKE_* env, MASTER_PORT/MASTER_ADDR, a torchrun or
    --master-port launch for the non-KV ports); UNKNOWN where a setting that decides is not known yet (a word that
    may carry flags, a --config file, a computed value; fail closed); False where all are known and none does (the
    port number is another program's of the pod, or nothing's: review33, a one-node data-parallel server and a Ray
    multi-node group listen on neither 29500 nor 29550 nor 29501, see :data:`_KV_PORTS`)."""
    e = g.engine
    extra = e.extra
    if "flag_carriers" in extra or "config" in extra:
        return UNKNOWN
    if port == 29501:
        decides: list[Any] = [e.nnodes]
    elif port == 29550:  # data parallelism across nodes: a size above 1 and more than one node or pod in the group
        size = e.data_parallel_size
        if size is UNKNOWN:
            return UNKNOWN
        decides = [g.pods_per_group, e.nnodes] if isinstance(size, int) and size > 1 else []
    else:
        decides = []
    if any(v is UNKNOWN for v in decides):
        return UNKNOWN
    if any(isinstance(v, int) and v > 1 for v in decides):
        return True
    if port in _KV_PORTS:
        if any(k in extra for k in _KV_EXTRAS) and port in kv_connector_ports(extra):
            return True
    elif any(k in extra for k in (
            _DP_EXTRAS if port == 29550 else _MULTI_NODE_EXTRAS if port == 29501 else _STORE_EXTRAS)):
        return True
    # VLLM_PORT: the first of the ports vLLM takes for itself instead of free ones (vllm/envs.py); a KV connector's
    # env only for its own port (review33)
    prefixes = (*_KV_ENV[port], "VLLM_PORT") if port in _KV_PORTS else (
        "VLLM_DP_", "VLLM_PORT", "MASTER_PORT", "MASTER_ADDR")
    words = " ".join(w for c in g.containers for w in (*c.command, *c.args) if isinstance(w, str))
    if any(str(n).startswith(prefixes) for c in g.containers for n in c.env) or (
            port not in _KV_PORTS and _LAUNCHER.search(words)):  # a launcher's store is no KV connector's port
        return True
    return False


#: A launcher that starts a process group around vLLM (torchrun's store on 29500, vLLM's external launcher). Not
#: ``--master-addr``/``--master-port`` alone: vLLM's own multi-node launcher takes them too, and puts its process
#: group on --master-port, 29501 by default (review33; read from the group's settings, :data:`_MULTI_NODE_EXTRAS`).
_LAUNCHER = re.compile(r"\btorchrun\b|\btorch\.distributed\.(?:run|launch)\b|\bdeepspeed\b")


#: The runtime ports that are Ray's defaults.
RAY_PORTS = frozenset(p for p, name in RUNTIME_PORTS.items() if name.startswith("Ray "))


def _absent_text(port: int) -> str:
    """What an advisory finding says of a runtime's default port whose pods are not in the inputs."""
    return (f"port {port} is {RUNTIME_PORTS[port]}'s default; the pods it selects are not in the input, so what serves "
            "it is not known")


def _hidden_text(port: int, images: list[str], verb: str) -> str:
    """What an advisory finding says of a Ray default port whose pods are in the inputs, run no Ray the input shows,
    and run their image's own entrypoint (:attr:`PodPorts.entrypoints`): not an unknown (the image exists; DESIGN.md,
    "Unknown, and what is not"), but no sign either that Ray does not run there."""
    shown = ", ".join(images[:3]) + (f" and {len(images) - 3} more" if len(images) > 3 else "")
    if len(images) == 1:
        return (f"port {port} is {RUNTIME_PORTS[port]}'s default; the pods it {verb} run image {shown} with its own "
                "entrypoint, which the input does not show")
    return (f"port {port} is {RUNTIME_PORTS[port]}'s default; the pods it {verb} run images {shown} with their own "
            "entrypoints, which the input does not show")


def _hidden_remedy(port: int, ingress: bool = False) -> str:
    """What to do where a Ray default port is published and what its pods run is their image's entrypoint."""
    fix = ("remove that route (reach a dashboard with kubectl port-forward) and route only the API port, through a "
           "gateway" if ingress else "make the Service type ClusterIP (reach a dashboard with kubectl port-forward) "
           "and publish only the API port, through a gateway")
    starts = "ray start, serve run" if port in RAY_PORTS else "torchrun, vllm serve, a MASTER_PORT it reads"
    return (f"if that entrypoint starts {_runtime_of(port)} ({starts}), {fix}; if it does not, write the "
            "program it runs as the container's command, so that the manifest shows it")


def _runtime_of(port: int) -> str:
    return "Ray" if port in RAY_PORTS else "torch.distributed or vLLM"


def _absent_remedy(port: int) -> str:
    """What to do where a runtime's default port is published and what serves it is not in the inputs."""
    return (f"lint it together with the workload whose pods it selects; if they run {_runtime_of(port)}, make the "
            "Service type ClusterIP (reach a dashboard with kubectl port-forward) and publish only the API port, "
            "through a gateway")


def _port_text(port: int, runtime: bool, others: list[str], unsure: bool) -> str:
    """How a finding names a runtime port: by the runtime where the input says it runs there (:func:`_what_it_selects`,
    or a port name of the runtime's); else, where what runs there is not known yet (fail closed), as that runtime's
    default port, with the workloads the inputs show behind it (a runtime's default port whose pods are in the inputs
    and run no runtime has no finding, :func:`_what_it_selects`)."""
    if runtime:
        return RUNTIME_PORTS[port]
    text = f"the default port of {RUNTIME_PORTS[port]}"
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        text += f"; it selects the pods of {shown}"
    if unsure:
        there = "" if port in RAY_PORTS else " there"  # a vLLM server's settings may open the port (_opens)
        text += f"; whether a pod it may select runs {_runtime_of(port)}{there} is not known"
    return text


#: What each setting that puts a runtime on a port of its choosing names (review33): vLLM's flags (EngineArgs.extra
#: keys), its env and torch.distributed's (vllm/envs.py; pytorch torch/distributed/rendezvous.py), and the key of a
#: KV connector's configuration (vllm/config/kv_transfer.py KVTransferConfig.kv_port).
_SETTING_PORTS = {
    "master_port": "vLLM multi-node master (--master-port)",
    "data_parallel_rpc_port": "vLLM data-parallel RPC (--data-parallel-rpc-port)",
    "kv_port": "vLLM KV transfer (kv_port of --kv-transfer-config)",
    "VLLM_NIXL_SIDE_CHANNEL_PORT": "vLLM NIXL side channel (VLLM_NIXL_SIDE_CHANNEL_PORT)",
    "VLLM_MOONCAKE_BOOTSTRAP_PORT": "vLLM Mooncake bootstrap (VLLM_MOONCAKE_BOOTSTRAP_PORT)",
    "VLLM_DP_MASTER_PORT": "vLLM data-parallel master (VLLM_DP_MASTER_PORT)",
    "MASTER_PORT": "torch.distributed store (MASTER_PORT)",
}


def _port_number(value: Any) -> int | None:
    """A port number a setting gives (an int, or a string of digits); None where it is not one or not known."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 < value < 65536 else None
    if isinstance(value, str) and value.strip().isdigit():
        return _port_number(int(value.strip()))
    return None


def _selected_groups(inv: Inventory, svc: Service) -> list[ServingGroup]:
    """The vLLM serving groups ``svc`` is known to select (one whose selection is not known yet is left out)."""
    found: list[ServingGroup] = []
    for g in selectable(inv, svc):
        try:
            if selects(svc, g):
                found.append(g)
        except Undecidable:
            continue
    return found


class _SettingPorts:
    """What the settings of the pods a Service selects say of a port it sends to that is no runtime's default number
    (:data:`RUNTIME_PORTS`): one judgement for a Service of type LoadBalancer or NodePort and for a Service behind an
    Ingress or a route (mend28: the Ingress path judged the default numbers only, so a Ray pin a preview computes, a
    --master-port, a MoRIIO rank's port or a port of Ray's worker range routed from outside passed in silence)."""

    def __init__(self, inv: Inventory, svc: Service) -> None:
        self.inv = inv
        self.svc = svc
        selector = svc.selector
        # the groups it is known to select, looked up once for every judgement below (review49: five times before)
        groups = _selected_groups(inv, svc) if isinstance(selector, dict) and selector else []
        #: the ports the pods' own settings put a runtime on, each with what listens there and why it is not sure
        self.set_by: dict[int, tuple[str, str]] = ports_set_by_settings(inv, svc, groups)
        self.rank_unsure: dict[int, tuple[str, tuple[str, str] | None]] = _moriio_ports_unsure(groups)
        self.pin_unknown: str = _ray_pin_unknown(inv, svc)
        #: highest base first: a port above two bases is said of the nearer one
        self.dp_unknown: list[tuple[int, str, str, str]] = sorted(_moriio_dp_unknown(groups), reverse=True)
        #: NIXL's, Mooncake's and P2P NCCL's ranks' ports at a size not known (mend32), highest base first
        self.kv_unknown: list[tuple[int, int, str, str, list[tuple[str, str]], str]] = sorted(
            _kv_sizes_unknown(groups), key=lambda f: -f[0])
        #: by workload, the ports no rank of its KV connector takes: its vLLM API port (review45), and those another
        #: container or native sidecar of its pods declares (review49: an llm-d routing sidecar's 8000 in front of
        #: vLLM's 8200 at --data-parallel-size=<DP_SIZE> blocked as a NIXL rank's; a rank's listener binds its port,
        #: ZMQ's or a socket's, and fails on one another program holds, so none is there while the pod serves)
        self.taken: dict[str, set[int]] = {}
        if self.dp_unknown or self.kv_unknown:
            pods = selectable_pods(inv, svc)
            for g in groups:
                subject = _subject(g)
                taken = self.taken.setdefault(subject, set())
                taken.add(8000 if g.engine.port is None else g.engine.port)
                servers = {c.name for c in vllm_containers(g)}
                for p in pods:
                    if p.subject == subject:
                        taken.update(n for name, numbers in p.declared.items() if name not in servers
                                     for n in numbers)

    def judge(self, port: int) -> tuple[str, str] | Undecidable | None:
        """(what listens on ``port``, why it is not sure or "") where the pods' settings put a runtime there (then in
        :attr:`set_by`); an :class:`Undecidable`, not raised, where a value that decides it is not known yet (a
        MoRIIO rank's port at a TP not known yet, review42; a Ray pin not known yet, mend25); None where nothing of
        theirs listens there."""
        if port in self.set_by:  # a port the pods' own settings put the runtime on (review33)
            return self.set_by[port]
        if port in self.rank_unsure:
            why, maybe = self.rank_unsure[port]
            if not maybe:
                return Undecidable(why)
            self.set_by[port] = maybe  # a Secret's or a ConfigMap's not in the inputs: advisory (mend30)
            return maybe
        if self.pin_unknown and not _vllm_api_port(self.inv, self.svc, port):
            # a Ray pin not known yet may be this port (mend25); not the API port the pods' own vLLM listens on
            # (review45, as mend26 for Ray's worker range: the pin cannot bind the port vLLM holds)
            return Undecidable(f"{self.pin_unknown} (port {port} may be it)")
        for base, setting, subject, unread in self.dp_unknown:  # a MoRIIO rank's port at a DP not known (mend28)
            if base < port and port not in self.taken.get(subject, ()):
                if unread:  # a Secret's or a ConfigMap's not in the inputs: no unknown, not sure either (mend30)
                    self.set_by[port] = (
                        f"possibly vLLM's MoRIIO KV connector {setting.removesuffix('_port')} of a rank: {setting} "
                        f"{base} + its data-parallel rank + its tensor-parallel rank",
                        f"the --data-parallel-size of {subject} is the variable {unread}, which a Secret or a "
                        f"ConfigMap not in the inputs sets, so whether a rank listens on {port} is not sure; write "
                        f"--data-parallel-size in the manifest to decide")
                    return self.set_by[port]
                return Undecidable(
                    f"data_parallel_size of {subject} (port {port} may be its MoRIIO KV connector's "
                    f"{setting.removesuffix('_port')} of a rank: {setting} {base} + its data-parallel rank + its "
                    f"tensor-parallel rank)")
        for low, high, what, subject, sizes, release in self.kv_unknown:  # mend32, as MoRIIO's above
            if not low <= port <= high or port in self.taken.get(subject, ()):
                continue
            for size, unread in sizes:
                if not unread:  # not known yet: cannot decide (a security rule's unknown fails closed)
                    return Undecidable(f"{size} of {subject} (port {port} may be its {what.removeprefix('vLLM ')})")
            flags = " and ".join(f"--{size.replace('_', '-')}" for size, _ in sizes)
            variables = " and ".join(unread for _, unread in sizes)
            noun = "variable" if len(sizes) == 1 else "variables"
            self.set_by[port] = (
                f"possibly {what}",
                f"the {flags} of {subject} {'is' if len(sizes) == 1 else 'are'} the {noun} {variables}, which a "
                f"Secret or a ConfigMap not in the inputs sets, so whether a rank listens on {port} is not sure; "
                f"write {flags} in the manifest to decide" + (f"; {release}" if release else ""))
            return self.set_by[port]
        worker = _ray_worker_port(self.inv, self.svc, port)  # mend24: ray start's default worker range
        if worker is not None:
            self.set_by[port] = worker
        return worker


def _ray_pin_unknown(inv: Inventory, svc: Service) -> str:
    """The ``ray start`` flag, and the workload, of a Ray port pin whose value is not known yet (a preview's computed
    output, a template's placeholder: :attr:`RayPins.unknown`) on the pods ``svc`` selects (mend25): a port it sends
    to may be that one, so SW301 cannot decide at it rather than judge Ray's default ports only; "" where none."""
    selector = svc.selector
    if not isinstance(selector, dict) or not selector:
        return ""
    for p in selectable_pods(inv, svc):
        if p.namespace != svc.namespace or not isinstance(p.labels, dict):
            continue
        if isinstance(p.ray, RayPins) and p.ray.unknown and all(p.labels.get(k) == v for k, v in selector.items()):
            flag = f"ray start's {p.ray.unknown}" if p.ray.unknown.startswith("--") else p.ray.unknown
            return f"the port {flag} pins Ray on in the pods of {p.subject}"
    return ""


def ports_set_by_settings(inv: Inventory, svc: Service, groups: list[ServingGroup]) -> dict[int, tuple[str, str]]:
    """The ports, other than the runtime's defaults, that the settings of the pods ``svc`` selects put a runtime on, by
    what names them (review33: a Service publishing them passed silently, only the default numbers of
    :data:`RUNTIME_PORTS` were looked at): a vLLM serving group's --master-port, --data-parallel-rpc-port, its KV
    connector's kv_port and its VLLM_NIXL_SIDE_CHANNEL_PORT, VLLM_MOONCAKE_BOOTSTRAP_PORT, VLLM_DP_MASTER_PORT or
    MASTER_PORT env (:data:`_SETTING_PORTS`); another workload's pods' (:attr:`PodPorts.dist`): a PyTorchJob's
    MASTER_PORT (its ``pytorchjob-port``, 23456 by default), NCCL_COMM_ID's port. Only known values of pods the Service
    is known to select (``groups``, :func:`_selected_groups`): what is not known yet is judged on the default ports
    (fail closed there). Each with what listens there and, where that depends on a release not known
    (:func:`_kv_rank_ports`), why it is not sure (else "")."""
    found: dict[int, tuple[str, str]] = {}
    selector = svc.selector
    if not isinstance(selector, dict) or not selector:
        return found
    served: set[str] = set()
    for g in groups:
        served.add(_subject(g))
        extra = g.engine.extra
        settings: list[tuple[str, Any]] = [(k, extra.get(k)) for k in ("master_port", "data_parallel_rpc_port")]
        parsed = _kv_config(extra.get("kv_transfer_config"))
        if isinstance(parsed, dict) and 14579 in kv_connector_ports(extra):  # the P2P NCCL engine's kv_port
            settings.append(("kv_port", parsed.get("kv_port")))
        for setting, moriio_port in _moriio_bases(g):
            for offset in _moriio_rank_offsets(g):  # review37: each rank listens on the base plus its offset
                rank_port = moriio_port + offset
                if rank_port not in RUNTIME_PORTS and rank_port < 65536:
                    found.setdefault(rank_port, (_MORIIO_PORTS[setting] if not offset else
                                     f"vLLM MoRIIO KV connector {setting.removesuffix('_port')} of a rank "
                                     f"({setting} {moriio_port} + {offset}, its data-parallel rank + its "
                                     "tensor-parallel rank)", ""))
        env: dict[str, Any] = {}
        for c in g.containers:
            settings += [(k, v) for k, v in c.env.items() if k in _SETTING_PORTS]
            env.update(c.env)
        for key, value in settings:
            number = _port_number(value)
            if number is not None and number not in RUNTIME_PORTS:
                found.setdefault(number, (_SETTING_PORTS[key], ""))
        for number, what, why in _kv_rank_ports(g, extra, env):  # mend24: each rank's port above the base
            if number not in RUNTIME_PORTS and (number not in found or (found[number][1] and not why)):
                found[number] = (what, why)
    for p in selectable_pods(inv, svc):
        if p.namespace != svc.namespace or not isinstance(p.labels, dict):
            continue
        if not all(p.labels.get(k) == v for k, v in selector.items()):
            continue
        # mend11: `ray start --port=6380`; mend25: the readable pins beside a flag not read
        pinned = p.ray if isinstance(p.ray, frozenset) else p.ray.ports if isinstance(p.ray, RayPins) else ()
        for number in sorted(pinned):
            if number not in RUNTIME_PORTS:
                found.setdefault(number, ("a Ray port its pods' settings choose: ray start's --port, --dashboard-port, "
                                         "--ray-client-server-port, --dashboard-agent-listen-port, "
                                         "--dashboard-agent-grpc-port, --node-manager-port, --object-manager-port, "
                                         "--runtime-env-agent-port, --min-worker-port to --max-worker-port or "
                                         "--worker-port-list, a head's --dashboard-grpc-port on Ray 2.44 or earlier, "
                                         "KubeRay's rayStartParams", ""))
        if p.subject in served or not isinstance(p.dist, frozenset):
            continue
        for number in sorted(p.dist):
            if number not in RUNTIME_PORTS:
                found.setdefault(number, ("the torch.distributed store or NCCL bootstrap port its pods' settings "
                                          "name: MASTER_PORT, NCCL_COMM_ID", ""))
    return found


def _runs_other_program(inv: Inventory, svc: Service) -> bool:
    """Whether the pods the Service selects are all in the inputs and all serve with another engine (SGLang, TGI:
    the workloads SW005 names so), none a vLLM serving group: the port number is that engine's own, which happens to
    equal a runtime port's, SGLang's disaggregation bootstrap port 8998 (Mooncake's too), not vLLM's runtime
    (corpus26: an SGLang prefill server's NodePort was blocked as the vLLM Mooncake bootstrap port). A Ray pod, a
    pod of no engine, a pod serving a model with an engine not recognised (which may be vLLM run by a program of
    its own: review28), a selector or labels not known yet, or pods not in the inputs keep the finding (fail
    closed)."""
    selector = svc.selector
    if not isinstance(selector, dict) or not selector:
        return False
    pods = []
    for p in selectable_pods(inv, svc):
        if not isinstance(p.labels, dict) or p.namespace != svc.namespace:
            if not isinstance(p.labels, dict):
                return False
            continue
        if all(p.labels.get(k) == v for k, v in selector.items()):
            pods.append(p)
    if not pods:
        return False
    try:
        if any(selects(svc, g) for g in selectable(inv, svc)):
            return False
    except Undecidable:
        return False
    # a server of an engine not recognised may be vLLM started by a program shardwise does not read: not another's
    engines = {li.subject for li in inv.launch_issues if li.other_engine and li.other_engine != UNRECOGNISED_ENGINE}
    return all(p.subject in engines for p in pods)


#: What to write instead of an Ingress or a route to a runtime port.
_INGRESS_REMEDY = ("remove that route (reach a dashboard with kubectl port-forward) and route only the API port, "
                   "through a gateway")
#: What to write instead of a LoadBalancer or NodePort Service in front of a runtime port.
_SERVICE_REMEDY = ("make the Service type ClusterIP (the group's pods still reach it inside the cluster; reach a "
                   "dashboard with kubectl port-forward), or take this port off it and leave only the API port")


def attached_security_groups(inv: Inventory) -> set[int]:
    """The ids of the security groups the inventory's node pools use (a pool whose list is unknown adds none);
    built once per inventory and rebuilt when pools or security groups were added."""
    key = (len(inv.pools), len(inv.security_groups))
    index = inv.index.get("attached_security_groups")
    if index is None or index[0] != key:
        attached: set[int] = set()
        for pool in inv.pools:
            try:
                found, _ = pool_security_groups(inv, pool)
            except Undecidable:
                continue
            attached.update(id(sg) for sg in found)
        index = (key, attached)
        inv.index["attached_security_groups"] = index
    return index[1]


def resolve_target_port(inv: Inventory, svc: Service, target: Any) -> tuple[int | None, str]:
    """(the container port a Service's ``targetPort`` sends to, the port's name when it was named).

    A name is looked up in the containers of the pods the Service selects (Kubernetes sends nothing to
    a pod without that port name). It is unknown, and the rule cannot decide, when no workload of the
    inputs has pods the Service selects, when the target itself is not known yet, or when a selected pod's
    port of that name (its number, its name, the port list) is not known yet and no known one is a runtime port.
    """
    if target is UNKNOWN:
        raise Undecidable(f"a targetPort of Service `{svc.name}`")
    if isinstance(target, bool) or target is None:
        return None, ""
    if isinstance(target, int):
        return target, ""
    name = str(target).strip()
    if name.isdigit():
        return int(name), ""
    selector = svc.selector
    if is_unknown(selector):
        raise Undecidable(f"the selector of Service `{svc.name}`")
    if not isinstance(selector, dict) or not selector:
        # a Service with no selector (or an empty one) selects no pod: "the service is assumed to have an external
        # process managing its endpoints, which Kubernetes will not modify" (Kubernetes API reference, ServiceSpec
        # `selector`); an Endpoints or EndpointSlice written for it gives the addresses and ports, so a port name
        # names no pod's port. llmos-ai/llmos-operator's sample/agent/service.yaml (a LoadBalancer Service in front
        # of an external Weaviate, `targetPort: <port>` beside an Endpoints object) was the blocking "cannot
        # decide: the port behind targetPort `<port>` ... is not known" (corpus37).
        return None, name
    matched = False
    found: set[int] = set()
    unknown = False  # a selected pod's port of that name, or the name of one of its ports, is not known yet

    def look_up(named: dict[str, Any]) -> None:
        nonlocal unknown
        number = named.get(name, named.get("*"))
        if number is UNKNOWN:
            unknown = True
        elif number is not None:
            found.add(number)

    for pods in selectable_pods(inv, svc):
        if pods.namespace != svc.namespace or pods.labels is UNKNOWN or not selector:
            continue
        if all(pods.labels.get(k) == v for k, v in selector.items()):
            matched = True
            look_up(pods.named)
    for g in selectable(inv, svc):
        if selects(svc, g):
            matched = True
            for c in g.containers:
                look_up(c.port_names)
    if not matched:
        raise Undecidable(
            f"the port behind targetPort `{name}` of Service `{svc.name}`",
            "no workload in the inputs has the pods it selects; lint it together with them, or give the "
            "targetPort as a number")
    runtime = sorted(p for p in found if p in RUNTIME_PORTS)
    if runtime:
        return runtime[0], name
    if unknown:
        raise Undecidable(f"the port behind targetPort `{name}` of Service `{svc.name}`")
    return (min(found) if found else None), name


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]

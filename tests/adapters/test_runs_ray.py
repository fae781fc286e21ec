"""PodPorts.ray and PodPorts.dist (SW301): whether a pod's containers run Ray (torch.distributed), read from the
words as the container runs them (review29): kubelet's $(VAR) and a shell's $VAR from literal env and ConfigMaps of
the input; a variable whose value is not known yet (computed at preview) leaves it unknown, one from a Secret does not
(DESIGN.md); so does a template placeholder in the image or as a whole word of the command (an unknown)."""

from __future__ import annotations

from typing import Any

import pytest
from shardwise.rules.adapters.k8s.workloads import (
    pytorch_job_labels,
    ray_release,
    ray_start_ports,
    runs_dist,
    runs_ray,
    with_labels,
)
from shardwise.rules.model import UNKNOWN, RayPins

#: The ports a head's `ray start --head` listens on with no flag of them beyond the pod: GCS, client, dashboard agent;
#: its dashboard is on the pod's loopback (Ray's --dashboard-host default, 127.0.0.1: review37).
HEAD = frozenset({6379, 10001, 52365})


def container(args: list[Any], env: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": "head", "image": "python:3.11-slim", "command": ["/bin/sh", "-c"], "args": args, "env": env}


@pytest.mark.parametrize(("image", "args", "env", "expected"), [
    # a template placeholder a tool fills before the object is applied: what runs there is not known yet
    ("${RAY_IMAGE}", [], [], UNKNOWN),
    ("{{ .Values.image }}", [], [], UNKNOWN),
    ("python:3.11-slim", ["${START_CMD}"], [], UNKNOWN),
    ("python:3.11-slim", ["{{ .Values.startCommand }}"], [], UNKNOWN),
    ("python:3.11-slim", ["${START_CMD:-ray start --head}"], [], UNKNOWN),  # its default or not (review41)
    # an image a placeholder only tags still names Ray
    ("rayproject/ray:${RAY_VERSION}", [], [], True),
    # the shell's variable, set by the container's env (a Secret's here) or maybe by its envFrom: no placeholder
    ("redis:7-alpine", ["$REDIS_ARGS"], [{"name": "REDIS_ARGS", "valueFrom": {"secretKeyRef": {"name": "r", "key": "a"}}}],
     False),
    ("redis:7-alpine", ["redis-server --requirepass ${REDIS_PASSWORD}"], [], False),
])
def test_runs_ray_reads_a_placeholder_as_not_known(image: str, args: list[Any], env: list[dict[str, Any]],
                                                   expected: Any) -> None:
    c = {**container(args, env), "image": image}
    assert runs_ray([c], {"containers": []}) is expected


@pytest.mark.parametrize(("args", "env", "expected"), [
    # a literal variable the command runs, by kubelet's reference and by the shell's
    # (a head's `ray start --head`: the ports it listens on, mend11)
    (["$(START)"], [{"name": "START", "value": "ray start --head --block"}], HEAD),
    (["exec ${START}"], [{"name": "START", "value": "ray start --head --block"}], HEAD),
    (["$START"], [{"name": "BIN", "value": "ray"}, {"name": "START", "value": "$(BIN) start --head"}], HEAD),
    # a value computed at preview: what the command runs is not known yet
    (["$(START)"], [{"name": "START", "value": UNKNOWN}], UNKNOWN),
    (["$(START)"], [{"name": "START", "valueFrom": UNKNOWN}], UNKNOWN),
    # a Secret's value, and a ConfigMap the input does not hold, are no unknown: the words stay as written
    (["redis-server --requirepass $(PASS)"], [{"name": "PASS", "valueFrom": {"secretKeyRef": {"name": "r", "key": "p"}}}],
     False),
    (["$(START)"], [{"name": "START", "valueFrom": {"configMapKeyRef": {"name": "elsewhere", "key": "k"}}}], False),
    # a variable of the same name set again: kubelet keeps the last
    (["$(START)"], [{"name": "START", "value": UNKNOWN}, {"name": "START", "value": "redis-server"}], False),
    (["$(START)"], [{"name": "START", "value": "redis-server"}, {"name": "START", "value": "ray start --head"}], HEAD),
])
def test_runs_ray_reads_the_variables_the_command_runs(args: list[Any], env: list[dict[str, Any]],
                                                      expected: Any) -> None:
    assert runs_ray([container(args, env)], {"containers": []}) == expected


@pytest.mark.parametrize(("args", "image", "expected"), [
    # KubeRay's worker command and Ray's docs': a worker joins the head's GCS and listens on its agent's port only
    (["ulimit -n 65536; ray start --address=raycluster-head-svc.ray.svc.cluster.local:6379 --metrics-export-port=8080 "
      "--block"], "rayproject/ray:2.46.0", frozenset({52365})),
    (["ray start --address=$(RAY_HEAD):6379 --dashboard-agent-listen-port 52400 --block"], "rayproject/ray:2.46.0",
     frozenset({52400})),
    # a head on the ports its flags choose (Ray's GCS fault-tolerance example: --port=6380); its dashboard only where
    # --dashboard-host puts it beyond the pod's loopback (review37: Ray's default is 127.0.0.1)
    (["ray start --head --port=6380 --dashboard-port 8266 --ray-client-server-port=10002 --block"],
     "python:3.11-slim", frozenset({6380, 10002, 52365})),
    (["ray start --head --port=6380 --dashboard-port 8266 --dashboard-host=0.0.0.0 --block"],
     "python:3.11-slim", frozenset({6380, 8266, 10001, 52365})),
    (["ray start --head --dashboard-host 'localhost' --block"], "python:3.11-slim", frozenset({6379, 10001, 52365})),
    (["ray start --head --dashboard-host=$(POD_IP) --block"], "python:3.11-slim",
     frozenset({6379, 8265, 10001, 52365})),  # a host not read may be any: the dashboard's port is Ray's
    (["ray start --head --port='6381' --block && serve run app:main"], "rayproject/ray:2.46.0",
     frozenset({6381, 10001, 52365})),
    # mend22: the ports the other flags pin, on a worker as on a head (the raylet's, the object manager's, the agents',
    # the workers' range or list); 0 asks for a free port; --metrics-export-port is no runtime port
    (["ray start --address=ray-head:6379 --node-manager-port=6380 --object-manager-port 6381 "
      "--runtime-env-agent-port=6382 --dashboard-agent-grpc-port=6383 --metrics-export-port=8080 --block"],
     "rayproject/ray:2.46.0", frozenset({6380, 6381, 6382, 6383, 52365})),
    (["ray start --address=ray-head:6379 --min-worker-port=11000 --max-worker-port=11003 --node-manager-port=0"],
     "rayproject/ray:2.46.0", frozenset({11000, 11001, 11002, 11003, 52365})),
    (["ray start --address=ray-head:6379 --min-worker-port=19997"], "rayproject/ray:2.46.0",
     frozenset({19997, 19998, 19999, 52365})),  # the range's other bound is Ray's default, 19999
    (["ray start --address=ray-head:6379 --min-worker-port=0 --max-worker-port=0"], "rayproject/ray:2.46.0",
     frozenset({52365})),  # 0: workers take free ports
    (["ray start --head --worker-port-list=12000,12001 --min-worker-port=11000 --block"], "rayproject/ray:2.46.0",
     frozenset({6379, 10001, 12000, 12001, 52365})),  # the list overrides the range
    # review41: a head that serves no dashboard (--include-dashboard false, a word click reads so): no HTTP server
    (["ray start --head --include-dashboard=false --dashboard-host=0.0.0.0 --block"], "rayproject/ray:2.46.0", HEAD),
    (["ray start --head --include-dashboard False --dashboard-host=0.0.0.0 --block"], "rayproject/ray:2.46.0", HEAD),
    (["ray start --head --include-dashboard=true --dashboard-host=0.0.0.0 --block"], "rayproject/ray:2.46.0",
     HEAD | {8265}),
    (["ray start --head --include-dashboard=$(DASH) --dashboard-host=0.0.0.0 --block"], "rayproject/ray:2.46.0",
     HEAD | {8265}),  # a value not read: it may serve
    # a flag whose value is not a number shardwise reads: every default port is Ray's (fail closed)
    (["ray start --head --port=$GCS_PORT --block"], "rayproject/ray:2.46.0", True),
    (["ray start --address=ray-head:6379 --node-manager-port=$(RAYLET_PORT) --block"], "rayproject/ray:2.46.0", True),
    # mend25: the ports its readable flags pin are kept beside that marker (6380 behind a LoadBalancer passed)
    (["ray start --address=ray-head:6379 --worker-port-list=12000,$(EXTRA) --block"], "rayproject/ray:2.46.0",
     RayPins(frozenset({12000}))),
    (["ray start --head --port=$(SECRET_VAR) --node-manager-port=6380 --block"], "rayproject/ray:2.46.0",
     RayPins(frozenset({6380}))),
    (["ray start --head --port=$(GCS) --dashboard-port=8266 --dashboard-host=0.0.0.0 --object-manager-port 0"],
     "rayproject/ray:2.46.0", RayPins(frozenset({8266}))),  # 0 takes a free port; the defaults are in the marker
    (["ray start --address=ray-head:6379 --min-worker-port=$(LOW) --node-manager-port=6380 --block"],
     "rayproject/ray:2.46.0", RayPins(frozenset({6380}))),  # a range whose bound is not read pins nothing known
    (["ray start --head --port=$(GCS) --block; ray start --address=other:6379 --node-manager-port=6390"],
     "rayproject/ray:2.46.0", RayPins(frozenset({6390}))),  # two starts: the other's pins as well
    # a placeholder a template tool fills in is not known yet: named, as SW301 cannot decide at it
    (["ray start --address=ray-head:6379 --node-manager-port=<RAYLET_PORT> --block"],
     "rayproject/ray:2.46.0", RayPins(frozenset(), "--node-manager-port")),
    # no `ray start`: a driver or a Ray image's entrypoint, all of Ray's default ports as before
    (["python -c 'import ray; ray.init()'"], "python:3.11-slim", True),
    ([], "rayproject/ray:2.46.0", True),
])
def test_runs_ray_reads_the_ports_ray_start_listens_on(args: list[Any], image: str, expected: Any) -> None:
    c = {**container(args, []), "image": image}
    assert runs_ray([c], {"containers": []}) == expected


_SECRET = {"secretKeyRef": {"name": "ray-ports", "key": "port"}}


@pytest.mark.parametrize(("args", "env", "expected"), [
    # review41: a start script over continued lines is one command: the flags after the first line are read
    (["ray start --head \\\n  --node-manager-port=8077 \\\n  --block\n"], [], HEAD | {8077}),
    (["ray start --head \\\r\n  --object-manager-port 8076 --block"], [], HEAD | {8076}),
    # a shell's ${VAR:-word}: the env's value, else its default; ${VAR-word} keeps an empty value, ${VAR:-word} not
    (["ray start --head --port=${GCS_PORT:-6385} --block"], [], frozenset({6385, 10001, 52365})),
    (["ray start --head --port=${GCS_PORT:-6385} --block"], [{"name": "GCS_PORT", "value": "6390"}],
     frozenset({6390, 10001, 52365})),
    (["ray start --head --port=${GCS_PORT:-6385} --block"], [{"name": "GCS_PORT", "value": ""}],
     frozenset({6385, 10001, 52365})),
    (["ray start --address=head:6379 --node-manager-port=${RAYLET_PORT-6380} --block"],
     [{"name": "RAYLET_PORT", "value": ""}], True),  # an empty value, set: not a port number, fail closed
    (["ray start --address=head:6379 --node-manager-port=${RAYLET_PORT:=6380} --block"], [], frozenset({6380, 52365})),
    # review43: a default that is itself an expansion with a default is read as bash reads it, the inner one first
    # (it was not read: Ray's default ports only, and a Service on 6380 passed in silence)
    (["ray start --address=head:6379 --node-manager-port=${RAYLET_PORT:-${BASE_PORT:-6380}} --block"], [],
     frozenset({6380, 52365})),
    (["ray start --address=head:6379 --node-manager-port=${RAYLET_PORT:-${BASE_PORT:-6380}} --block"],
     [{"name": "BASE_PORT", "value": "7380"}], frozenset({7380, 52365})),
    (["ray start --address=head:6379 --node-manager-port=${RAYLET_PORT:-${BASE_PORT:-6380}} --block"],
     [{"name": "BASE_PORT", "value": "7380"}, {"name": "RAYLET_PORT", "value": "8380"}], frozenset({8380, 52365})),
    (["ray start --head --port=${A:-${B:-${C:-6385}}} --block"], [], frozenset({6385, 10001, 52365})),
    # the outer variable a Secret's: not its default, however nested (fail closed)
    (["ray start --address=head:6379 --node-manager-port=${RAYLET_PORT:-${BASE_PORT:-6380}} --block"],
     [{"name": "RAYLET_PORT", "valueFrom": _SECRET}], True),
    # the script assigns the variable itself: not the default; review43: its value where the script assigns it once,
    # before it refers to it, to a value read (it was not read: Ray's default ports, 7000 passed)
    (["export GCS_PORT=7000\nray start --head --port=${GCS_PORT:-6385} --block"], [], frozenset({7000, 10001, 52365})),
    (["GCS_PORT=7000 ray start --head --port=${GCS_PORT:-6385} --block"], [], frozenset({7000, 10001, 52365})),
    (["HEAD_PORT=${HEAD_PORT:-6385}\nray start --head --port=$HEAD_PORT --block"], [], frozenset({6385, 10001, 52365})),
    (["HEAD_PORT=${HEAD_PORT:-6385}\nray start --head --port=$HEAD_PORT --block"],
     [{"name": "HEAD_PORT", "value": "6390"}], frozenset({6390, 10001, 52365})),
    (["RAY_PORT=\"6386\"; ray start --head --port=${RAY_PORT} --block"], [], frozenset({6386, 10001, 52365})),
    (["OM_PORT='8076'\nray start --head --object-manager-port=$OM_PORT --block"], [], HEAD | {8076}),
    # assigned twice (a branch each), from a command substitution, from a Secret's variable, or after its use: not
    # read (fail closed, Ray's default ports)
    (["if [ \"$RANK\" = 0 ]; then PORT=6385; else PORT=6386; fi\nray start --head --port=$PORT --block"], [], True),
    (["PORT=$(cat /etc/ray/port)\nray start --head --port=$PORT --block"], [], True),
    (["PORT=${BASE:-6385}\nray start --head --port=$PORT --block"], [{"name": "BASE", "valueFrom": _SECRET}], True),
    (["ray start --head --port=$PORT --block; PORT=6385"], [], True),
    # a value the input does not show (a Secret's; an envFrom Secret's) may be set: not the default, fail closed
    (["ray start --address=head:6379 --node-manager-port=${RAYLET_PORT:-6380} --block"],
     [{"name": "RAYLET_PORT", "valueFrom": _SECRET}], True),
    # a value computed at preview is not its default either: Ray runs there, its default ports (as with $(VAR)), and
    # the flag is named as not known yet (mend25: SW301 cannot decide at it), beside the pins it reads
    (["ray start --address=head:6379 --node-manager-port=${RAYLET_PORT:-6380} --block"],
     [{"name": "RAYLET_PORT", "value": UNKNOWN}], RayPins(frozenset(), "--node-manager-port")),
    (["ray start --address=head:6379 --node-manager-port=$(RAYLET_PORT) --object-manager-port=6381 --block"],
     [{"name": "RAYLET_PORT", "valueFrom": UNKNOWN}], RayPins(frozenset({6381}), "--node-manager-port")),
])
def test_runs_ray_reads_a_start_script_as_a_shell_runs_it(args: list[Any], env: list[dict[str, Any]],
                                                          expected: Any) -> None:
    assert runs_ray([container(args, env)], {"containers": []}) == expected


def test_runs_ray_reads_no_default_where_an_env_from_secret_may_set_the_variable() -> None:
    c = {**container(["ray start --address=head:6379 --node-manager-port=${RAYLET_PORT:-6380} --block"], []),
         "envFrom": [{"secretRef": {"name": "ray-ports"}}]}
    assert runs_ray([c], {"containers": []}) is True


@pytest.mark.parametrize(("params", "env", "expected"), [
    # review41: KubeRay's rayStartParams run as flags of a bash -lc script: kubelet's $(VAR), the shell's ${VAR:-word}
    ({"node-manager-port": "$(RAYLET_PORT)"}, [{"name": "RAYLET_PORT", "value": "43403"}],
     {"node-manager-port": "43403"}),
    ({"object-manager-port": "${OM_PORT:-43404}", "num-cpus": "0"}, [],
     {"object-manager-port": "43404", "num-cpus": "0"}),
    # the downward API's, a Secret's, a value computed at preview: the reference stays (not a port number)
    ({"node-ip-address": "$MY_POD_IP"}, [{"name": "MY_POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
     {"node-ip-address": "$MY_POD_IP"}),
    ({"node-manager-port": "${RAYLET_PORT:-6380}"}, [{"name": "RAYLET_PORT", "valueFrom": _SECRET}],
     {"node-manager-port": "${RAYLET_PORT:-6380}"}),
    ({"node-manager-port": "$(RAYLET_PORT)"}, [{"name": "RAYLET_PORT", "value": UNKNOWN}],
     {"node-manager-port": "$(RAYLET_PORT)"}),
])
def test_ray_params_are_read_as_the_ray_container_runs_them(params: dict[str, Any], env: list[dict[str, Any]],
                                                           expected: dict[str, Any]) -> None:
    from shardwise.rules.adapters.k8s.workloads import ray_params_as_run

    assert ray_params_as_run(params, {"name": "ray-head", "env": env}) == expected


def test_runs_ray_keeps_the_pins_of_a_start_beside_a_ray_image_that_says_no_more() -> None:
    # mend25: a sidecar on Ray's image (its entrypoint: every default port Ray's) and a worker pinning its raylet
    sidecar = {"name": "agent", "image": "rayproject/ray:2.46.0"}
    worker = container(["ray start --address=head:6379 --node-manager-port=6380 --block"], [])
    assert runs_ray([sidecar, worker], {"containers": []}) == RayPins(frozenset({6380}))
    assert runs_ray([worker, sidecar, UNKNOWN], {"containers": []}) == RayPins(frozenset({6380}))


@pytest.mark.parametrize(("params", "head", "expected"), [
    # mend25: KubeRay's rayStartParams, a value computed at preview (Pulumi's unknown) or a Helm placeholder
    ({"port": "6380", "node-manager-port": UNKNOWN}, False, RayPins(frozenset(), "--node-manager-port")),
    ({"port": UNKNOWN, "node-manager-port": "43403"}, True, RayPins(frozenset({43403}), "--port")),
    ({"object-manager-port": "{{ .Values.om }}", "node-manager-port": "43403"}, False,
     RayPins(frozenset({43403}), "--object-manager-port")),
    # a Secret's value is no unknown: the default ports fail closed, the readable pin kept, nothing named
    ({"port": "$(SECRET_VAR)", "node-manager-port": "6380"}, True, RayPins(frozenset({6380}))),
    ({"port": "$(SECRET_VAR)"}, True, True),
    ({"port": "6380", "node-manager-port": "6381"}, True, frozenset({6380, 6381, 10001, 52365})),
])
def test_ray_start_ports_keeps_the_readable_pins_and_names_a_value_not_known_yet(params: dict[str, Any], head: bool,
                                                                                 expected: Any) -> None:
    from shardwise.rules.adapters.k8s.workloads import ray_start_ports

    assert ray_start_ports(params, head) == expected


def test_runs_ray_keeps_a_worker_unknown_beside_a_container_not_known_yet():
    worker = container(["ray start --address=head:6379 --block"], [])
    assert runs_ray([worker, UNKNOWN], {"containers": []}) is UNKNOWN


def test_runs_dist_reads_the_command_as_the_container_runs_it_too():
    # mend5's PodPorts.dist reads the same words: a torchrun launched through a variable is torch.distributed's
    env = [{"name": "LAUNCH", "value": "torchrun --nproc-per-node 8 train.py"}]
    assert runs_dist([container(["exec $(LAUNCH)"], env)], {"containers": []}) is True
    assert runs_dist([container(["$(LAUNCH)"], [{"name": "LAUNCH", "value": UNKNOWN}])], {"containers": []}) is UNKNOWN
    assert runs_dist([container(["exec $(LAUNCH)"], [{"name": "LAUNCH", "value": "gunicorn app:app"}])],
                     {"containers": []}) is False


def test_runs_dist_reads_a_placeholder_as_not_known_too():
    assert runs_dist([{**container([], []), "image": "${TRAINER_IMAGE}"}], {"containers": []}) is UNKNOWN
    assert runs_dist([container(["{{ .Values.launch }}"], [])], {"containers": []}) is UNKNOWN


@pytest.mark.parametrize(("name", "port", "expected"), [
    # KubeRay's names for the head's ports (kuberay v1.7.0 constant.go): only gcs-server is Ray's own word
    ("gcs-server", 6379, True), ("gcs", 6379, True), ("GCS-Server", 6379, True),
    ("client", 10001, False), ("dashboard", 8265, False), ("metrics", 8265, False), ("serve", 8265, False),
    ("redis", 6379, False), ("http", 8265, False),
    # a name with the word ray (or raylet) in it is Ray's
    ("ray-client", 10001, True), ("ray-dashboard", 8265, True), ("ray_gcs", 6379, True), ("raylet", 52365, True),
    ("array-client", 10001, False), ("xray", 8265, False),
    # the other runtime ports keep their words
    ("dist", 29500, True), ("client", 29500, False),
])
def test_a_ray_port_name_counts_only_where_it_is_rays_own(name: str, port: int, expected: bool) -> None:
    """mend7: a generic word (``client``, ``dashboard``, ``metrics``) on a Ray default port says nothing alone."""
    from shardwise.rules.checks.sw301 import _names_runtime

    assert _names_runtime(name, port) is expected


@pytest.mark.parametrize(("c", "expected"), [
    # no command: the image's own entrypoint runs (args only replace its CMD)
    ({"image": "ghcr.io/acme/head:2.3"}, ["ghcr.io/acme/head:2.3"]),
    ({"image": "ghcr.io/acme/head:2.3", "command": []}, ["ghcr.io/acme/head:2.3"]),
    ({"image": "ghcr.io/acme/cache:0.7", "args": ["--listen", "0.0.0.0:6379"]}, ["ghcr.io/acme/cache:0.7"]),
    # a command written: what runs is shown
    ({"image": "ghcr.io/acme/head:2.3", "command": ["python", "-m", "app"]}, []),
    # images well known to run another program, by repository name, whatever the registry, tag or digest
    ({"image": "redis:7.2-alpine"}, []), ({"image": "docker.io/library/nginx:1.27"}, []),
    ({"image": "grafana/grafana:11.2.0"}, []), ({"image": "quay.io/minio/minio:RELEASE.2024-10-02T17-50-41Z"}, []),
    ({"image": "postgres@sha256:" + "0" * 64}, []), ({"image": "docker.io/bitnami/valkey-cluster:8.0"}, []),
    ({"image": "localhost:5000/redis"}, []),
    # a name only like one: not that program
    ({"image": "ghcr.io/acme/redis-ray-bridge:1"}, ["ghcr.io/acme/redis-ray-bridge:1"]),
    ({"image": "registry.bitnami.example/acme/head:1"}, ["registry.bitnami.example/acme/head:1"]),
    # Ray's image says Ray (runs_ray), and an image or command not known yet says nothing here
    ({"image": "rayproject/ray:2.40.0"}, []), ({"image": "${HEAD_IMAGE}"}, []), ({"image": UNKNOWN}, []),
    ({"image": "ghcr.io/acme/head:2.3", "command": UNKNOWN}, []),
])
def test_own_entrypoints_are_the_images_whose_entrypoint_the_input_does_not_show(c: dict[str, Any],
                                                                                 expected: list[str]) -> None:
    """mend7: a container with no command runs its image's ENTRYPOINT, which the input does not show (SW301: advisory
    on a Ray default port), unless the image is Ray's or one well known to run another program."""
    from shardwise.rules.adapters.k8s.workloads import own_entrypoints

    assert own_entrypoints([{"name": "c", **c}, UNKNOWN]) == expected

@pytest.mark.parametrize(("env", "expected"), [
    # mend9: NCCL's settings name no port it listens on (its bootstrap takes an ephemeral one): nothing opened
    ([{"name": "NCCL_DEBUG", "value": "INFO"}, {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"}], False),
    ([{"name": "TORCH_NCCL_ASYNC_ERROR_HANDLING", "value": "1"}], False),
    # NCCL_COMM_ID names the root's bootstrap port: that port only
    ([{"name": "NCCL_COMM_ID", "value": "allreduce-0.allreduce:29501"}], frozenset({29501})),
    ([{"name": "NCCL_COMM_ID", "value": "[fd00::12]:5600"}], frozenset({5600})),
    # its value not known yet, or no port in it: which port is not known
    ([{"name": "NCCL_COMM_ID", "value": UNKNOWN}], UNKNOWN),
    ([{"name": "NCCL_COMM_ID", "valueFrom": {"secretKeyRef": {"name": "nccl", "key": "id"}}}], UNKNOWN),
    # the env:// rendezvous still says torch.distributed on every runtime port
    ([{"name": "NCCL_DEBUG", "value": "INFO"}, {"name": "MASTER_ADDR", "value": "trainer-0"}], True),
])
def test_runs_dist_counts_only_the_nccl_port_nccl_comm_id_names(env: list[dict[str, Any]], expected: Any) -> None:
    found = runs_dist([container(["python train.py"], env)], {"containers": []})
    assert found == expected and type(found) is type(expected)


@pytest.mark.parametrize("source", [{"secretRef": {"name": "rendezvous"}}, {"configMapRef": {"name": "absent"}}])
def test_runs_dist_reads_nothing_from_an_envfrom_the_input_does_not_show(source: dict[str, Any]) -> None:
    # what a Secret, or a ConfigMap not in the input, could set is not an unknown (DESIGN.md, "Unknown, and what is
    # not"): the pod is judged on what the manifests set (mend9 read it as not known, so a published 29500 blocked)
    pod = {**container(["python train.py"], []), "envFrom": [source]}
    assert runs_dist([pod], {"containers": []}) is False


def test_runs_dist_reads_an_envfrom_source_named_but_not_known_yet_as_not_known() -> None:
    # a ConfigMap's name computed at preview: the input names a source it cannot show yet
    pod = {**container(["python train.py"], []), "envFrom": [{"configMapRef": {"name": UNKNOWN}}]}
    assert runs_dist([pod], {"containers": []}) is UNKNOWN


def test_pytorch_job_labels_are_the_training_operators() -> None:
    """review33: the labels the training operator puts on a PyTorchJob's pods, so that a Service selecting them by
    ``training.kubeflow.org/job-name`` selects the job's pods of the input (the Master alone has ``job-role``)."""
    assert pytorch_job_labels("mnist", "Master") == {
        "training.kubeflow.org/operator-name": "pytorchjob-controller", "training.kubeflow.org/job-name": "mnist",
        "training.kubeflow.org/replica-type": "master", "training.kubeflow.org/replica-index": "0",
        "training.kubeflow.org/job-role": "master"}
    assert pytorch_job_labels("mnist", "Worker") == {
        "training.kubeflow.org/operator-name": "pytorchjob-controller", "training.kubeflow.org/job-name": "mnist",
        "training.kubeflow.org/replica-type": "worker", "training.kubeflow.org/replica-index": "0"}


def test_controller_labels_go_over_the_templates_and_leave_unknown_labels_unknown() -> None:
    meta = {"labels": {"app": "x", "training.kubeflow.org/job-name": "stale"}}
    assert with_labels(meta, {"training.kubeflow.org/job-name": "mnist"}) == {
        "labels": {"app": "x", "training.kubeflow.org/job-name": "mnist"}}
    assert with_labels(None, {"a": "b"}) == {"labels": {"a": "b"}}
    unknown = {"labels": UNKNOWN}
    assert with_labels(unknown, {"a": "b"}) is unknown


@pytest.mark.parametrize(("value", "expected"), [
    (13345, 13345), ("21001", 21001), (" 23456 ", 23456),
    # not a port: no number, out of range, a flag's switch, not known yet
    ("auto", None), (0, None), (70000, None), (True, None), (UNKNOWN, None), (None, None),
])
def test_a_setting_names_a_port_only_with_a_port_number(value: Any, expected: int | None) -> None:
    """review33: the port a setting puts a runtime on (--data-parallel-rpc-port, kv_port, MASTER_PORT)."""
    from shardwise.rules.checks.sw301 import _port_number
    assert _port_number(value) == expected


@pytest.mark.parametrize(("extra", "expected"), [
    ({"kv_transfer_config": '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'}, {5600}),
    ({"kv_transfer_config": '{"kv_connector":"MooncakeConnector","kv_role":"kv_producer"}'}, {8998}),
    ({"kv_transfer_config": '{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer"}'}, {14579}),
    ({"kv_transfer_config": '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'}, set()),
    ({"kv_transfer_config": '{"kv_connector":"OffloadingConnector","kv_role":"kv_both"}'}, set()),
    ({"kv_transfer_config": '{"kv_connector":"MultiConnector","kv_connector_extra_config":{"connectors":['
                            '{"kv_connector":"NixlConnector"},{"kv_connector":"LMCacheConnectorV1"}]}}'}, {5600}),
    # a connector shardwise does not know, a MultiConnector whose connectors are not written, a value not known yet,
    # a configuration that is no JSON: any of the three
    ({"kv_transfer_config": '{"kv_connector":"DynamoNixlConnector"}'}, {5600, 8998, 14579}),
    ({"kv_transfer_config": '{"kv_connector":"MultiConnector"}'}, {5600, 8998, 14579}),
    ({"kv_transfer_config": UNKNOWN}, {5600, 8998, 14579}),
    ({"kv_transfer_config": "{kv_connector: NixlConnector"}, {5600, 8998, 14579}),
    ({"kv_connector": "LMCacheConnectorV1"}, set()),
])
def test_a_kv_connector_opens_its_own_port(extra: dict[str, Any], expected: set[int]) -> None:
    """review33: each of vLLM's KV connectors opens its own KV-transfer port, LMCache's none of them."""
    from shardwise.rules.checks.sw301 import kv_connector_ports
    assert kv_connector_ports(extra) == expected


@pytest.mark.parametrize(("image", "declared", "release"), [
    ("rayproject/ray:2.44.1-py311-gpu", None, (2, 44)),
    ("docker.io/rayproject/ray-ml:2.9.0", "2.46.0", (2, 9)),  # the image runs: its tag before rayVersion
    ("harbor.example.com/hub/rayproject/ray:2.41.0", None, (2, 41)),
    # review46: Ray's own image whose tag names no release runs master or the newest release, whatever rayVersion says
    ("rayproject/ray:nightly-py310", "2.41.0", None),
    ("rayproject/ray:latest", "2.41.0", None),
    ("rayproject/ray", "2.41.0", None),
    # review46: a digest beside the tag changes nothing; a digest alone leaves the release to rayVersion
    ("rayproject/ray:2.40.0-py310-gpu@sha256:" + "0" * 64, None, (2, 40)),
    ("rayproject/ray@sha256:" + "0" * 64, "2.41.0", (2, 41)),
    ("rayproject/ray@sha256:" + "0" * 64, None, None),
    ("quay.io/acme/ray-vllm:1.0", "2.41.0", (2, 41)),  # a team's image: its rayVersion is the word there is
    ("vllm/vllm-openai:v0.8.5", None, None),
    ("rayproject/ray:latest", None, None),
    (UNKNOWN, UNKNOWN, None),
])
def test_ray_release(image: Any, declared: Any, release: Any) -> None:
    """mend28: the Ray a pod runs, where its image's tag or KubeRay's rayVersion says it."""
    assert ray_release(image, declared) == release


def test_dashboard_grpc_port_only_on_a_head_of_ray_2_44_or_earlier() -> None:
    """mend28: a head's --dashboard-grpc-port is Ray's on 2.44 and earlier (the dashboard's gRPC server), not from
    2.45 (deprecated, unused), not where the release is not read, never on a worker."""
    params = {"dashboard-host": "0.0.0.0", "dashboard-grpc-port": "50055"}
    assert ray_start_ports(params, True, (), (2, 44)) == frozenset({6379, 8265, 10001, 52365, 50055})
    assert ray_start_ports(params, True, (), (2, 45)) == frozenset({6379, 8265, 10001, 52365})
    assert ray_start_ports(params, True, ()) == frozenset({6379, 8265, 10001, 52365})
    assert ray_start_ports(params, False, (), (2, 40)) == frozenset({52365})
    assert ray_start_ports({"dashboard-grpc-port": "0"}, True, (), (2, 40)) == frozenset({6379, 10001, 52365})

@pytest.mark.parametrize(("text", "expected"), [
    # the LeaderWorkerSet guide's leader and worker (kubernetes-sigs/lws docs/examples/vllm/GPU/lws.yaml)
    ("bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE);"
     " python3 -m vllm.entrypoints.openai.api_server --port 8080",
     "bash ray start --head --port=6379; python3 -m vllm.entrypoints.openai.api_server --port 8080"),
    ("multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS) --ray_port=6380 --num-gpus=8",
     "ray start --address=$(LWS_LEADER_ADDRESS):6380 --block --num-gpus=8"),
    ("./multi-node-serving.sh leader --ray_cluster_size=2 --ray_init_timeout=600 --dashboard-host=0.0.0.0",
     "ray start --head --port=6379 --dashboard-host=0.0.0.0"),
    # not the script, or a copy shardwise has not read: as written
    ("/vllm-workspace/ray_init.sh leader --ray_cluster_size=2", "/vllm-workspace/ray_init.sh leader --ray_cluster_size=2"),
    ("vllm serve m --port 8000", "vllm serve m --port 8000"),
])
def test_multi_node_serving_script_is_the_ray_start_it_runs(text: str, expected: str) -> None:
    """review44: vLLM's examples/online_serving/multi-node-serving.sh runs `ray start --head --port=$ray_port` (leader)
    or `ray start --address=$ray_address:$ray_port --block` (worker) with the words it does not read."""
    from shardwise.rules.adapters.k8s.workloads import as_ray_start
    assert as_ray_start(text) == expected


def test_the_guide_leader_runs_ray_on_its_loopback_dashboard() -> None:
    """review44: the leader's Ray ports are a head's with its dashboard on the pod's loopback (no 8265)."""
    leader = {"name": "vllm-leader", "image": "vllm/vllm-openai:v0.8.5", "command": ["sh", "-c", (
        "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=2; "
        "python3 -m vllm.entrypoints.openai.api_server --port 8080")]}
    ports = runs_ray([leader])
    assert isinstance(ports, frozenset) and 6379 in ports and 8265 not in ports

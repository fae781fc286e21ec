"""A local Kubernetes control plane for the cluster tests (``tests/e2e/test_cluster.py``).

``scripts/build-cluster.sh`` builds kube-apiserver, kube-controller-manager and kube-scheduler from
k8s.io/kubernetes, etcd from go.etcd.io/etcd/server/v3 and kwok from sigs.k8s.io/kwok, and copies the
CustomResourceDefinitions the stacks need from the Go modules of the projects that publish them
(KEDA, the Prometheus operator, Karpenter and its AWS provider) into its cache. :class:`ControlPlane`
starts them on loopback ports in a temporary folder and stops them afterwards:

* etcd, then the API server (a self-signed serving certificate, one static admin token,
  ``AlwaysAllow`` authorisation, no endpoint reconciler: its loopback address is not a valid endpoint);
* the controller manager (Deployments, ReplicaSets, EndpointSlices, namespaces, garbage collection,
  service accounts and their tokens) and the scheduler, both as they run in a cluster;
* kwok, which plays the kubelets of the Nodes the tests register (annotated ``kwok.x-k8s.io/node:
  fake``): it keeps them Ready, gives the pods bound to them an IP and marks them Running and Ready. No
  container runs, so no probe does either;
* :class:`IngressAddresses`, a thread that writes a load balancer's hostname into every Ingress's status,
  as the AWS Load Balancer Controller would once it made the ALB;
* the LeaderWorkerSet controller (built from ``sigs.k8s.io/lws`` at the release of the chart
  ``components/cluster.py`` pins, with the CRD and webhook configuration of the same module): it runs on the
  host with its webhooks enabled, served on a loopback port with a self-signed certificate, and the API server
  calls them at that address (``clientConfig.url`` instead of the chart's Service, whose pod would not run
  here: kwok runs no container). So a LeaderWorkerSet is defaulted and validated by the real webhooks, its
  leader and worker StatefulSets are made by the real controller, its pods get the group labels and
  ``LWS_*`` variables from the real pod webhook and are placed by the real scheduler, and its status
  (``readyReplicas``, condition ``Available``) is the controller's.

The API is spoken to with :meth:`ControlPlane.api` (JSON over HTTPS with the admin token); there is no
kubectl. Where a binary is missing the tests are skipped, or fail with ``SHARDWISE_REQUIRE_CLUSTER`` set.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = ROOT / "scripts" / "build-cluster.sh"
CACHE = Path(os.environ.get("SHARDWISE_CLUSTER_CACHE", Path.home() / ".cache" / "shardwise-cluster"))
BINARIES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")
TOKEN = "shardwise-cluster-tests"
KWOK_ANNOTATION = "kwok.x-k8s.io/node"


def _default(name: str) -> str:
    for line in BUILD_SCRIPT.read_text(encoding="utf-8").splitlines():
        if line.startswith(f'{name}="${{{name}:-'):
            return line.split(":-", 1)[1].split("}", 1)[0]
    raise AssertionError(f"{BUILD_SCRIPT} sets no default {name}")


def lws_dir(bin_dir: Path) -> Path:
    """Where ``scripts/build-cluster.sh`` puts the LeaderWorkerSet controller, its CRD and webhook files."""
    return bin_dir / f"lws-{_default('LWS_VERSION')}"


def cluster_bin() -> Path | None:
    """The folder ``scripts/build-cluster.sh`` builds into, where every binary is there."""
    env = os.environ.get("SHARDWISE_CLUSTER_BIN")
    folder = Path(env) if env else CACHE / (
        f"bin-k8s-{_default('K8S_VERSION')}-etcd-{_default('ETCD_VERSION')}-kwok-{_default('KWOK_VERSION')}")
    ok = all(os.access(folder / b, os.X_OK) for b in BINARIES) and (folder / "crds" / ".complete").is_file() \
        and (folder / "kwok-stages.yaml").is_file() and os.access(lws_dir(folder) / "lws-controller", os.X_OK) \
        and (lws_dir(folder) / ".complete").is_file()
    return folder if ok else None


def require_cluster() -> Path:
    folder = cluster_bin()
    if folder is not None:
        return folder
    why = ("the control plane is not built: run scripts/build-cluster.sh (needs Go; about 25 minutes the first "
           "time on 2 cores, then cached under ~/.cache/shardwise-cluster)")
    if os.environ.get("SHARDWISE_REQUIRE_CLUSTER"):
        pytest.fail(why)
    pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ApiError(AssertionError):
    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status}: {body[:2000]}")
        self.status = status
        self.body = body


class ControlPlane:
    """etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok under ``where``."""

    def __init__(self, bin_dir: Path, where: Path) -> None:
        self.bin = bin_dir
        self.dir = where
        self.logs = where / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.procs: list[tuple[str, subprocess.Popen[bytes]]] = []
        self._logs: list[Any] = []
        self.port = _free_port()
        self.server = f"https://127.0.0.1:{self.port}"
        self.kubeconfig = where / "kubeconfig.yaml"
        self._tls = ssl.create_default_context()
        self._tls.check_hostname = False
        self._tls.verify_mode = ssl.CERT_NONE
        self.ingress_addresses: IngressAddresses | None = None
        self.lws_port: int | None = None

    # -- start and stop
    def _start(self, name: str, *args: str, path: Path | None = None) -> None:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - closed in stop()
        self._logs.append(log)
        proc = subprocess.Popen([str(path or self.bin / name), *args], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=self.dir)
        self.procs.append((name, proc))

    def log_tail(self, name: str, lines: int = 40) -> str:
        path = self.logs / f"{name}.log"
        text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def _wait(self, what: str, ready: Any, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name, proc in self.procs:
                if proc.poll() is not None:
                    raise AssertionError(f"{name} exited {proc.returncode} while waiting for {what}:\n"
                                         f"{self.log_tail(name)}")
            try:
                if ready():
                    return
            except (OSError, ApiError):
                pass
            time.sleep(0.5)
        raise AssertionError(f"{what} not ready after {timeout:.0f} s:\n" +
                             "\n".join(f"--- {n}\n{self.log_tail(n, 15)}" for n, _ in self.procs))

    def start(self) -> ControlPlane:
        try:
            return self._start_all()
        except BaseException:
            self.stop()
            raise

    def _start_all(self) -> ControlPlane:
        d = self.dir
        etcd_client, etcd_peer = _free_port(), _free_port()
        self._start("etcd", "--name", "default", "--data-dir", str(d / "etcd"),
                    "--listen-client-urls", f"http://127.0.0.1:{etcd_client}",
                    "--advertise-client-urls", f"http://127.0.0.1:{etcd_client}",
                    "--listen-peer-urls", f"http://127.0.0.1:{etcd_peer}",
                    "--initial-advertise-peer-urls", f"http://127.0.0.1:{etcd_peer}",
                    "--initial-cluster", f"default=http://127.0.0.1:{etcd_peer}",
                    "--listen-metrics-urls", f"http://127.0.0.1:{_free_port()}",
                    "--unsafe-no-fsync", "--log-level", "warn")
        self._wait("etcd", lambda: urllib.request.urlopen(f"http://127.0.0.1:{etcd_client}/health",
                                                          timeout=2).status == 200)
        subprocess.run(["openssl", "genrsa", "-out", str(d / "sa.key"), "2048"], check=True, capture_output=True)
        subprocess.run(["openssl", "rsa", "-in", str(d / "sa.key"), "-pubout", "-out", str(d / "sa.pub")],
                       check=True, capture_output=True)
        (d / "tokens.csv").write_text(f"{TOKEN},admin,admin,system:masters\n", encoding="utf-8")
        self._start("kube-apiserver", "--etcd-servers", f"http://127.0.0.1:{etcd_client}",
                    "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
                    "--secure-port", str(self.port), "--cert-dir", str(d / "pki"),
                    "--token-auth-file", str(d / "tokens.csv"), "--authorization-mode", "AlwaysAllow",
                    "--service-cluster-ip-range", "10.96.0.0/16",
                    "--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
                    "--service-account-key-file", str(d / "sa.pub"),
                    "--service-account-signing-key-file", str(d / "sa.key"),
                    "--endpoint-reconciler-type", "none", "--allow-privileged=true", "-v", "1")
        self._wait("kube-apiserver", lambda: self.api("GET", "/readyz") is not None, timeout=180)
        self.kubeconfig.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "local",
            "clusters": [{"name": "local", "cluster": {"server": self.server, "insecure-skip-tls-verify": True}}],
            "users": [{"name": "admin", "user": {"token": TOKEN}}],
            "contexts": [{"name": "local", "context": {"cluster": "local", "user": "admin"}}],
        }), encoding="utf-8")
        kc = str(self.kubeconfig)
        self._start("kube-controller-manager", "--kubeconfig", kc, "--leader-elect=false",
                    "--bind-address", "127.0.0.1", "--secure-port", str(_free_port()),
                    "--service-account-private-key-file", str(d / "sa.key"),
                    "--use-service-account-credentials=false", "--cluster-cidr", "10.244.0.0/16",
                    "--concurrent-gc-syncs", "5", "-v", "1")
        self._start("kube-scheduler", "--kubeconfig", kc, "--leader-elect=false",
                    "--bind-address", "127.0.0.1", "--secure-port", str(_free_port()), "-v", "1")
        self._start("kwok", "--kubeconfig", kc, "--config", str(self.bin / "kwok-stages.yaml"),
                    "--manage-all-nodes=false",
                    f"--manage-nodes-with-annotation-selector={KWOK_ANNOTATION}=fake",
                    "--cidr", "10.0.0.1/16", "--node-ip", "10.0.0.1",
                    "--server-address", f"127.0.0.1:{_free_port()}")
        # the service account controller has run once the default namespace has its account
        self._wait("kube-controller-manager",
                   lambda: self.api("GET", "/api/v1/namespaces/default/serviceaccounts/default") is not None)
        self.ingress_addresses = IngressAddresses(self)
        self.ingress_addresses.start()
        return self

    def stop(self) -> None:
        if self.ingress_addresses is not None:
            self.ingress_addresses.stop()
        for _name, proc in reversed(self.procs):
            proc.terminate()
        for _name, proc in reversed(self.procs):
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        self.procs.clear()
        for log in self._logs:
            log.close()
        self._logs.clear()

    def __enter__(self) -> ControlPlane:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the API
    def api(self, method: str, path: str, body: Any = None, *, content_type: str = "application/json",
            missing_ok: bool = False) -> Any:
        """One request; the decoded JSON (or text) answer, None for a 404 where ``missing_ok``."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        req = urllib.request.Request(self.server + path, data=data, method=method, headers={
            "Authorization": f"Bearer {TOKEN}", "Content-Type": content_type, "Accept": "application/json"})
        for attempt in range(30):
            try:
                with urllib.request.urlopen(req, context=self._tls, timeout=30) as resp:
                    text = resp.read().decode()
                break
            except urllib.error.HTTPError as e:
                if e.code == 404 and (missing_ok or method == "GET"):
                    return None
                if e.code == 429 and attempt < 29:  # "storage is (re)initializing" just after a start
                    time.sleep(float(e.headers.get("Retry-After") or 1))
                    continue
                raise ApiError(e.code, e.read().decode(errors="replace")) from None
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text

    def create(self, obj: dict[str, Any]) -> Any:
        return self.api("POST", collection_path(obj), obj)

    def apply_crds(self) -> list[str]:
        """Every CustomResourceDefinition under the build's ``crds/`` folder and the LeaderWorkerSet's, then wait
        until each is established; their names."""
        names = []
        for f in [*sorted((self.bin / "crds").glob("*.yaml")), lws_dir(self.bin) / "crd.yaml"]:
            for doc in yaml.safe_load_all(f.read_text(encoding="utf-8")):
                if doc and doc.get("kind") == "CustomResourceDefinition":
                    self.create(doc)
                    names.append(doc["metadata"]["name"])

        def established() -> bool:
            for n in names:
                got = self.api("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{n}") or {}
                conds = {c["type"]: c["status"] for c in (got.get("status") or {}).get("conditions") or []}
                if conds.get("Established") != "True":
                    return False
            return True

        self._wait("the CustomResourceDefinitions", established)
        return names

    def start_lws_controller(self) -> None:
        """The LeaderWorkerSet controller with its webhooks (after :meth:`apply_crds`: it watches its CRD)."""
        d, lws = self.dir / "lws", lws_dir(self.bin)
        d.mkdir(exist_ok=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-keyout", str(d / "tls.key"), "-out", str(d / "tls.crt"), "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
        self.lws_port = _free_port()
        (d / "config.yaml").write_text(yaml.safe_dump({
            "apiVersion": "config.lws.x-k8s.io/v1alpha1", "kind": "Configuration",
            "leaderElection": {"leaderElect": False}, "internalCertManagement": {"enable": False},
            "webhook": {"host": "127.0.0.1", "port": self.lws_port, "certDir": str(d)},
            "metrics": {"bindAddress": "0"}, "health": {"healthProbeBindAddress": f"127.0.0.1:{_free_port()}"},
        }), encoding="utf-8")
        self._start("lws-controller", "--kubeconfig", str(self.kubeconfig), "--config", str(d / "config.yaml"),
                    "--zap-log-level", "info", path=lws / "lws-controller")

        def listening() -> bool:
            with socket.create_connection(("127.0.0.1", int(self.lws_port or 0)), timeout=1):
                return True

        self._wait("the LeaderWorkerSet webhook server", listening, timeout=120)
        ca = base64.b64encode((d / "tls.crt").read_bytes()).decode()
        for config in lws_webhook_configurations(lws, f"https://127.0.0.1:{self.lws_port}", ca):
            self.create(config)

    def add_node(self, name: str, labels: dict[str, str], taints: list[dict[str, str]],
                 capacity: dict[str, str]) -> None:
        """A Node kwok keeps Ready, with these labels, taints and capacity (= allocatable)."""
        self.create({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": name, "labels": {**labels, "kubernetes.io/hostname": name,
                                                           "type": "kwok"},
                                  "annotations": {KWOK_ANNOTATION: "fake"}},
                     "spec": {"taints": taints}})
        status = {"status": {"capacity": capacity, "allocatable": capacity}}
        self.api("PATCH", f"/api/v1/nodes/{name}/status", status, content_type="application/merge-patch+json")
        self._wait(f"node {name}", lambda: any(
            c["type"] == "Ready" and c["status"] == "True"
            for c in (self.api("GET", f"/api/v1/nodes/{name}") or {}).get("status", {}).get("conditions", [])))

    def items(self, path: str) -> list[dict[str, Any]]:
        got = self.api("GET", path)
        return list(got.get("items", [])) if got else []

    def wait_for(self, what: str, ready: Any, timeout: float = 120) -> None:
        self._wait(what, ready, timeout)


def lws_webhook_configurations(lws: Path, url: str, ca_bundle: str) -> list[dict[str, Any]]:
    """The LeaderWorkerSet webhook configurations of its module (``config/webhook/manifests.yaml`` with the
    kustomize patches its release applies: the pod webhooks only for pods of a LeaderWorkerSet), each webhook
    called at ``url`` + its path instead of through the chart's Service."""
    patches = {"MutatingWebhookConfiguration": "mutating-patch.yaml",
               "ValidatingWebhookConfiguration": "validating-patch.yaml"}
    out = []
    for doc in yaml.safe_load_all((lws / "webhook-manifests.yaml").read_text(encoding="utf-8")):
        if not doc:
            continue
        for op in yaml.safe_load((lws / patches[doc["kind"]]).read_text(encoding="utf-8")):
            assert op["op"] == "replace" and op["path"].startswith("/webhooks/"), op
            doc["webhooks"][int(op["path"].rsplit("/", 1)[1])] = op["value"]
        doc["metadata"]["name"] = f"lws-{doc['metadata']['name']}"
        for hook in doc["webhooks"]:
            path = hook["clientConfig"]["service"]["path"]
            hook["clientConfig"] = {"url": url + path, "caBundle": ca_bundle}
        out.append(doc)
    return out


def collection_path(obj: dict[str, Any]) -> str:
    """The REST collection an object is created in (core, named groups; namespaced or not)."""
    api_version, kind = obj["apiVersion"], obj["kind"]
    base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
    plural = PLURALS.get(kind) or _plural(kind.lower())
    ns = obj.get("metadata", {}).get("namespace")
    return f"{base}/namespaces/{ns}/{plural}" if ns else f"{base}/{plural}"


PLURALS = {"Endpoints": "endpoints"}


def _plural(kind: str) -> str:
    """The resource name the API serves a kind under, as its generators make it (lower case, English plural)."""
    if kind.endswith(("s", "ch", "sh", "x")):
        return kind + "es"
    if kind.endswith("y") and kind[-2:-1] not in "aeiou":
        return kind[:-1] + "ies"
    return kind + "s"


class IngressAddresses(threading.Thread):
    """Plays the AWS Load Balancer Controller's one visible act: an Ingress of class ``alb`` gets a load
    balancer hostname in its status (the ALB itself is not simulated)."""

    def __init__(self, plane: ControlPlane) -> None:
        super().__init__(daemon=True)
        self.plane = plane
        self._done = threading.Event()
        self.addressed: list[str] = []

    def stop(self) -> None:
        self._done.set()
        self.join(5)

    def run(self) -> None:
        while not self._done.wait(1.0):
            try:
                for ing in self.plane.items("/apis/networking.k8s.io/v1/ingresses"):
                    meta = ing["metadata"]
                    if ing.get("status", {}).get("loadBalancer", {}).get("ingress"):
                        continue
                    host = f"k8s-{meta['namespace']}-{meta['name']}-0123456789.us-east-1.elb.amazonaws.com"
                    self.plane.api("PATCH", f"/apis/networking.k8s.io/v1/namespaces/{meta['namespace']}/ingresses/"
                                   f"{meta['name']}/status", {"status": {"loadBalancer": {"ingress": [
                                       {"hostname": host}]}}}, content_type="application/merge-patch+json")
                    self.addressed.append(f"{meta['namespace']}/{meta['name']}")
            except (OSError, ApiError):
                continue


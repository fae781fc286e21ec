"""metadata.name longer than the API server takes for the object's kind (fuzz26: a Deployment named with 100,000
characters linted without a word). kubernetes v1.35.4: a DNS label (63) for a Service, a Namespace and a StatefulSet,
a DNS subdomain (253) for a Deployment, a ConfigMap, a Job and every custom resource; RBAC names have no bound."""

from __future__ import annotations

import pytest
from shardwise.rules.adapters.load import load_text


def _obj(api: str, kind: str, name: str) -> str:
    return f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  namespace: serving\n  name: {name}\n"


@pytest.mark.parametrize(("api", "kind", "most", "said"), [
    ("v1", "Service", 63, "a DNS label: kubernetes pkg/apis/core/validation ValidateServiceName"),
    ("v1", "Namespace", 63, "a DNS label: kubernetes pkg/apis/core/validation ValidateNamespaceName"),
    ("apps/v1", "StatefulSet", 63, "a DNS label: kubernetes pkg/apis/apps/validation ValidateStatefulSetName"),
    ("apps/v1", "Deployment", 253, "a DNS subdomain: kubernetes pkg/apis/apps/validation"),
    ("v1", "ConfigMap", 253, "a DNS subdomain: kubernetes pkg/apis/core/validation"),
    ("batch/v1", "Job", 253, "a DNS subdomain: kubernetes pkg/apis/batch/validation"),
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", 253,
     "a DNS subdomain: kubernetes apiextensions-apiserver, a custom resource"),
    ("gateway.networking.k8s.io/v1", "HTTPRoute", 253,
     "a DNS subdomain: kubernetes apiextensions-apiserver, a custom resource"),
])
def test_a_name_over_its_kinds_bound_is_an_input_error_at_its_line(api, kind, most, said):
    assert load_text(_obj(api, kind, "a" * most), "n.yaml").errors == []
    inv = load_text(_obj(api, kind, "a" * (most + 1)), "n.yaml")
    assert [(e.file, e.line, e.message) for e in inv.errors] == [("n.yaml", 5, (
        f"metadata.name: {most + 1:,} characters, more than the {most} the Kubernetes API server takes in the name of "
        f"kind {kind} ({said}); Kubernetes refuses the object as written"))]


def test_a_name_of_100000_characters_and_the_others_in_its_file():
    text = _obj("apps/v1", "Deployment", "d" * 100_000) + "---\n" + _obj("v1", "Service", "ok")
    inv = load_text(text, "n.yaml")
    assert [(e.line, e.message.split(",", 1)[0]) for e in inv.errors] == [(5, "metadata.name: 100")]


@pytest.mark.parametrize(("api", "kind", "name"), [
    ("rbac.authorization.k8s.io/v1", "Role", "r" * 300),          # a path segment name: no bound
    ("v1", "Service", "{{ .Release.Name }}-" + "s" * 100),        # unrendered: its length is not known
    ("v1", "Service", "${PREFIX}" + "s" * 100),
    ("policy/v1", "PodDisruptionBudget", "p" * 300),              # a kind not in the table: not checked
])
def test_names_whose_bound_is_not_known_are_not_checked(api, kind, name):
    assert [e.message for e in load_text(_obj(api, kind, name), "n.yaml").errors
            if "metadata.name" in e.message] == []

"""A ReferenceGrant's values a preview computes stay unknown (mend18): never dropped, where a dropped ``to[].name``
reads as "every object of that kind" and a route then joins its pool on a guess.

The shape of the SW306 cross-namespace fixture's llama half (an llm-d Gateway and HTTPRoute, the model's vLLM,
InferencePool and ReferenceGrant in a namespace of their own), as ``pulumi preview --json`` writes it, in
``shardwise lint`` of the preview file and in the policy pack's analysis of the same resources.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi_preview import U, lint_document, step
from shardwise.rules.adapters.pulumi import resources_from_json
from shardwise.rules.adapters.pulumi.k8s import prepare_manifest
from shardwise.rules.adapters.pulumi.values import clean
from shardwise.rules.app import crossguard
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.model import UNKNOWN

FIXTURE = Path(__file__).parents[1] / "fixtures" / "rules" / "SW306" / "cross-namespace-backend.yaml"
SURE = ("HTTPRoute `llm-d/llama-route` routes to Deployment llama/vllm-llama (InferencePool `vllm-llama`) "
        "through Gateway `llm-d/inference-gateway`")
UNDECIDED = ("cannot decide: whether HTTPRoute `llm-d/llama-route` sends to InferencePool `llama/vllm-llama` is not "
             "known (ReferenceGrant `allow-llm-d-routes` holds a value not known yet)")
GRANT = 3


def _preview(path: tuple[Any, ...] = (), value: Any = U) -> dict[str, Any]:
    """The fixture's first five objects (up to llama-route) as a preview; ``value`` at ``path`` of the grant."""
    objs = list(yaml.safe_load_all(FIXTURE.read_text(encoding="utf-8")))[:5]
    assert [o["kind"] for o in objs] == ["Gateway", "Deployment", "InferencePool", "ReferenceGrant", "HTTPRoute"]
    if path:
        node: Any = objs[GRANT]
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = copy.deepcopy(value)
    return {"steps": [step(f"kubernetes:{o['apiVersion']}:{o['kind']}", o["metadata"]["name"], o) for o in objs]}


def _pack(doc: dict[str, Any]) -> list[str]:
    """SW306's messages in the pack's stack and resource analyses."""
    resources = resources_from_json(doc, "p.json")
    context = crossguard.StackContext()
    out: list[str] = []
    for analysis in [crossguard.stack_analysis(resources, context),
                     *(crossguard.resource_analysis(r, context) for r in resources)]:
        for rule in ALL_RULES:
            if rule.meta.code == "SW306" and rule.meta.scope == analysis.scope:
                out.extend(r.message for r in analysis.check(rule, None, context))
        assert analysis.internal == [], analysis.internal
    return out


def _lint(tmp_path: Path, doc: dict[str, Any]) -> list[tuple[str, str]]:
    code, errors, findings = lint_document(tmp_path, doc)
    assert errors == ""
    return [(f["level"], f["message"]) for f in findings if "SW306" in f["codes"]]


def test_the_known_grant_permits_the_route_and_sw306_blocks(tmp_path: Path) -> None:
    assert [m[:len(SURE) + 7] for m in _pack(_preview())] == [f"SW306: {SURE}"]
    assert [(level, m[:len(SURE)]) for level, m in _lint(tmp_path, _preview())] == [("mandatory", f"SW306: {SURE}"[:len(SURE)])]


@pytest.mark.parametrize("path", [
    ("spec", "to", 0, "name"),  # dropped, it covered every InferencePool of llama
    ("spec", "to", 0, "kind"), ("spec", "to", 0, "group"), ("spec", "to", 0), ("spec", "to"),
    ("spec", "from", 0, "namespace"), ("spec", "from", 0, "kind"), ("spec", "from"), ("spec",),
    ("metadata", "namespace"),
], ids=lambda p: ".".join(map(str, p)))
def test_a_grant_value_not_known_is_cannot_decide_never_a_sure_block(tmp_path: Path, path: tuple[Any, ...]) -> None:
    doc = _preview(path)
    assert _pack(doc) == [f"SW306: {UNDECIDED}"]
    assert _lint(tmp_path, doc) == [("mandatory", f"SW306: {UNDECIDED}")]


def test_an_unknown_that_cannot_change_the_answer_leaves_it_decided(tmp_path: Path) -> None:
    """A grant to Services only: whatever its from namespace is, it does not let the route reach a pool."""
    doc = _preview(("spec", "to", 0, "kind"), "Service")
    grant = doc["steps"][GRANT]["newState"]["inputs"]
    grant["spec"]["to"][0]["group"] = ""
    grant["spec"]["from"][0]["namespace"] = U
    assert _pack(doc) == []
    assert _lint(tmp_path, doc) == []


def test_an_openshift_route_s_unknown_to_name_is_not_a_grant_s() -> None:
    """Kept unknown for a ReferenceGrant's kind only: a Route's ``spec.to.name`` not known is left out as before."""
    route = {"apiVersion": "route.openshift.io/v1", "kind": "Route", "metadata": {"name": "r"},
             "spec": {"to": {"kind": "Service", "name": U}}}
    grant = {"apiVersion": "gateway.networking.k8s.io/v1beta1", "kind": "ReferenceGrant", "metadata": {"name": "g"},
             "spec": {"to": [{"group": "", "kind": "Service", "name": U}]}}
    assert prepare_manifest(clean(route))[0]["spec"] == {"to": {"kind": "Service"}}
    assert prepare_manifest(clean(grant))[0]["spec"] == {"to": [{"group": "", "kind": "Service", "name": UNKNOWN}]}

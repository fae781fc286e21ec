"""``_net.selectable`` and ``selectable_pods``: the groups and pods a Service's selector may select, by an index, in place of every group.

Every rule that looks up the pods behind a Service (SW301's named targetPort, SW306, ``judged_behind``) asks
``selects`` only of these; what they conclude, and the ``Undecidable`` they raise, must be what asking it of
every group gives.
"""

from __future__ import annotations

import itertools

from shardwise.rules.checks._net import selectable, selectable_pods, selects
from shardwise.rules.model import UNKNOWN, UNKNOWN_NAMESPACE, Inventory, PodPorts, Service, ServingGroup, Undecidable


def _groups() -> list[ServingGroup]:
    def group(name: str, labels: object, namespace: str = "serving") -> ServingGroup:
        g = ServingGroup(name=name, kind="Deployment", namespace=namespace)
        g.pod_labels = labels  # type: ignore[assignment]
        return g

    return [
        group("a", {"app": "a", "tier": "gpu"}),
        group("b", {"app": "b", "tier": "gpu"}),
        group("a-other-ns", {"app": "a"}, namespace="other"),
        group("unknown-labels", UNKNOWN),
        group("unknown-value", {"app": UNKNOWN, "tier": "gpu"}),
        group("number-value", {"app": 1}),
        group("no-app", {"tier": "gpu"}),
        group("unknown-ns", {"app": "b"}, namespace=UNKNOWN_NAMESPACE),
        group("a-again", {"app": "a"}),
    ]


def _services() -> list[Service]:
    selectors: list[object] = [
        {"app": "a"}, {"app": "b", "tier": "gpu"}, {"tier": "gpu", "app": "a"}, {"app": "c"}, {"app": 1},
        {"app": UNKNOWN}, {}, UNKNOWN, {"tier": "gpu"},
    ]
    out = []
    for (i, selector), namespace in itertools.product(enumerate(selectors), ("serving", "other", UNKNOWN_NAMESPACE)):
        svc = Service(name=f"svc-{i}", namespace=namespace)
        svc.selector = selector  # type: ignore[assignment]
        out.append(svc)
    return out


def _outcome(groups: object, svc: Service) -> tuple[str, object]:
    try:
        return "selects", [g.name for g in groups if selects(svc, g)]  # type: ignore[attr-defined]
    except Undecidable as u:
        return "undecidable", str(u)


def test_selectable_selects_and_refuses_as_every_group_does() -> None:
    inv = Inventory(groups=_groups())
    checked = 0
    for svc in _services():
        assert _outcome(selectable(inv, svc), svc) == _outcome(inv.groups, svc), (svc.namespace, svc.selector)
        checked += 1
    assert checked == 27


def test_selectable_leaves_out_only_groups_with_another_value_of_the_first_label() -> None:
    inv = Inventory(groups=_groups())
    names = [g.name for g in selectable(inv, Service(name="s", namespace="serving", selector={"app": "a"}))]
    # kept: the value asked for, unknown labels, a value not a string; left out: b, no app label, app: b
    assert names == ["a", "a-other-ns", "unknown-labels", "unknown-value", "number-value", "a-again"]
    assert _outcome(inv.groups, Service(name="s", namespace="serving", selector={"app": "a"})) == (
        "undecidable", str(Undecidable("the label set of the pods of Deployment `unknown-labels`")))
    assert selectable(inv, Service(name="s", selector={})) == []
    assert selectable(inv, Service(name="s", selector=UNKNOWN)) is inv.groups  # type: ignore[arg-type]
    assert selectable(inv, Service(name="s", selector={"app": 1})) is inv.groups  # type: ignore[dict-item]


def test_selectable_sees_groups_added_after_it_was_asked() -> None:
    inv = Inventory(groups=_groups()[:2])
    svc = Service(name="s", namespace="serving", selector={"app": "a"})
    assert [g.name for g in selectable(inv, svc)] == ["a"]
    later = ServingGroup(name="a-later", kind="Deployment", namespace="serving")
    later.pod_labels = {"app": "a"}
    inv.groups.append(later)
    assert [g.name for g in selectable(inv, svc)] == ["a", "a-later"]


def _matching_pods(pods: object, svc: Service) -> list[str]:
    """SW301's test of the pods a Service's named targetPort may reach (``resolve_target_port``)."""
    selector = svc.selector
    return [p.subject for p in pods  # type: ignore[attr-defined]
            if p.namespace == svc.namespace and p.labels is not UNKNOWN and selector
            and all(p.labels.get(k) == v for k, v in selector.items())]


def test_selectable_pods_matches_as_every_entry_does() -> None:
    inv = Inventory(pod_ports=[PodPorts(g.name, g.namespace, g.pod_labels) for g in _groups()])
    services = [s for s in _services() if s.selector is not UNKNOWN]
    for svc in services:
        assert _matching_pods(selectable_pods(inv, svc), svc) == _matching_pods(inv.pod_ports, svc), svc.selector
    assert len(services) == 24
    assert [p.subject for p in selectable_pods(inv, Service(name="s", selector={"app": "b", "tier": "gpu"}))] == [
        "b", "unknown-labels", "unknown-value", "number-value", "unknown-ns"]
    assert _matching_pods(inv.pod_ports, Service(name="s", namespace="serving", selector={"app": "b"})) == ["b"]

"""What a finding on an object that a Flux HelmRelease or Kustomization rendered adds: Flux's objects name no cluster
(readers17: ``adapters.gitops.FLUX_CLUSTER``), so the facts of the cluster that a rule reads (its GPU nodes and pools,
its network policies) are known only where the inputs hold them, and the finding says which are missing."""

from __future__ import annotations

#: The suffix of a file that a Flux object rendered (``adapters.gitops``: `` (via HelmRelease NS/NAME)``).
_FLUX_VIA = (" (via HelmRelease ", " (via Kustomization ")


def flux_subject(file: str | None) -> str | None:
    """The Flux object (``HelmRelease flux-system/chat``) that rendered ``file``, else None."""
    if not file:
        return None
    at = max(file.rfind(v) for v in _FLUX_VIA)
    if at < 0 or not file.endswith(")"):
        return None
    return file[at + len(" (via "):-1]


def no_cluster(file: str | None, facts: str) -> str:
    """``"; <the Flux object> names no cluster ...: <facts> ..."`` for a finding on an object that a Flux object
    rendered, else ``""``. ``facts``: what of the cluster the rule needed (``"GPU nodes and node pools"``)."""
    subject = flux_subject(file)
    if subject is None:
        return ""
    return (f"; {subject}, which deploys it, names no cluster (Flux applies it to the cluster Flux runs in, or to the "
            f"one its spec.kubeConfig Secret names), so that cluster's {facts} are known only where the inputs hold "
            "them")

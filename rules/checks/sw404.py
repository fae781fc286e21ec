"""SW404: one warm replica in a production stack."""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import UNKNOWN, Inventory, ServingGroup, Undecidable, known
from ..model.vocab import ANN_PRODUCTION
from ._net import targets

#: Warm replicas a production model needs so that one failure or rollout leaves one serving.
MIN_WARM_REPLICAS = 2


def production_from(g: ServingGroup, config: LintConfig) -> str | None:
    """What makes ``g`` production, as the finding names it; None where it is not (docs/cli.md, ``production``).

    The run's settings decide for every workload (``production`` in ``shardwise.toml``; in the policy pack, the
    policy's config, else the previewed stack's ``<project>:environment``); unset, the workload's own setting: its
    annotation ``shardwise.dev/production``, or for a workload a stack config declares, that stack's
    ``production``. A stack's setting is not the run's: a plain manifest linted beside ``Pulumi.prod.yaml`` is of
    another deployable unit (``adapters.units``), and not production for it."""
    if config.production is not None:
        return (config.production_from or "the run's `production` setting") if config.production else None
    if g.production is None or g.production is UNKNOWN or not g.production:
        return None
    if g.declared:
        # the file's name, as the stack is known (`Pulumi.prod.yaml`); the finding's location gives its path
        return f"the stack config `{os.path.basename(g.location.file or '')}` sets `production`"
    return f'the annotation `{ANN_PRODUCTION}: "true"`'


class SingleReplicaInProduction(GroupRule):
    meta = RuleMeta(
        code="SW404",
        name="single-replica-in-production",
        enforcement="advisory",
        severity="medium",
        summary="A production stack serves a model with one warm replica and no headroom.",
        why=(
            "A replacement vLLM replica needs a GPU node and minutes to load its weights. With one replica, "
            "a node failure, a spot interruption, a drain for an AMI update or a bad rollout takes the "
            "model offline for that whole time, and autoscaling from one cannot absorb a burst until the "
            "new replica is warm."
        ),
        bad_example=(
            "apiVersion: apps/v1\n"
            "kind: Deployment\n"
            "metadata: {name: llama, namespace: serving}\n"
            "spec:\n"
            "  replicas: 1"
        ),
        good_example=(
            "apiVersion: keda.sh/v1alpha1\n"
            "kind: ScaledObject\n"
            "spec:\n"
            "  scaleTargetRef: {name: llama}\n"
            "  minReplicaCount: 2\n"
            "  maxReplicaCount: 8"
        ),
        remediation=(
            "Keep at least two warm replicas in production (replicas, or the autoscaler's minimum), spread "
            "over nodes, with a PodDisruptionBudget of maxUnavailable 1."
        ),
        references=(
            "https://kubernetes.io/docs/concepts/workloads/pods/disruptions/",
            "https://kubernetes.io/docs/tasks/run-application/configure-pdb/",
            "https://keda.sh/docs/latest/reference/scaledobject-spec/",
        ),
        scope="stack",
        safe_to_skip_unknown=True,
        applies_to_plans=False,
    )
    fields = ("replicas",)  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        source = production_from(g, config)
        if source is None:
            return
        scalers = [a for a in inv.autoscalers if any(t is g for t in targets(inv, a))]
        if scalers:
            lows = []
            for a in scalers:
                low = known(a.min_replicas, f"minimum replicas of {a.kind} `{a.name}`")
                if low is None:
                    low = 0 if a.kind == "ScaledObject" else 1
                lows.append((int(low), a))
            warm, a = max(lows, key=lambda t: t[0])
            found = f"{a.kind} `{a.name}` keeps a minimum of {warm}"
        else:
            if g.replicas is UNKNOWN and g.replicas_why:  # readers16: name what the object writes
                raise Undecidable("replicas", g.replicas_why)
            warm = int(known(g.replicas, "replicas"))
            found = f"replicas is {warm}"
        if warm >= MIN_WARM_REPLICAS:
            return
        unseen = next((a for a in inv.autoscalers if a.target_name is UNKNOWN and a.namespace in (g.namespace, UNKNOWN)
                       and inv.same_unit(a.location.file, g.location.file)), None)
        if unseen is not None:  # review27: an autoscaler whose target is not known at preview may keep more warm
            raise Undecidable(f"which workload {unseen.kind} `{unseen.name}` scales (its scaleTargetRef), and so how "
                              "many replicas it keeps warm")
        yield hit(g, f"{warm} warm replica{'s' if warm != 1 else ''} in production ({found}), where at least "
                     f"{MIN_WARM_REPLICAS} are required; production: {source}")

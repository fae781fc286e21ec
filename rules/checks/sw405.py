"""SW405: a LeaderWorkerSet that does not recreate its group when one pod fails."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, hit
from ..model import Inventory, ServingGroup, known

GROUP_RESTART = ("RecreateGroupOnPodRestart", "RecreateGroupAfterStart")


class LwsWithoutGroupRestart(GroupRule):
    meta = RuleMeta(
        code="SW405",
        name="lws-without-group-restart",
        enforcement="advisory",
        severity="medium",
        summary="A LeaderWorkerSet restarts a failed pod alone instead of recreating its whole group.",
        why=(
            "The pods of a multi-node vLLM group are ranks of one torch.distributed / NCCL world. A rank "
            "that restarts alone cannot rejoin the running world: the leader hangs in a collective or "
            "serves errors until someone deletes the group by hand. LeaderWorkerSet's "
            "RecreateGroupOnPodRestart restarts every rank together."
        ),
        bad_example=(
            "apiVersion: leaderworkerset.x-k8s.io/v1\n"
            "kind: LeaderWorkerSet\n"
            "spec:\n"
            "  leaderWorkerTemplate:\n"
            "    size: 2\n"
            "    restartPolicy: None"
        ),
        good_example=(
            "apiVersion: leaderworkerset.x-k8s.io/v1\n"
            "kind: LeaderWorkerSet\n"
            "spec:\n"
            "  leaderWorkerTemplate:\n"
            "    size: 2\n"
            "    restartPolicy: RecreateGroupOnPodRestart"
        ),
        remediation="Set spec.leaderWorkerTemplate.restartPolicy to RecreateGroupOnPodRestart.",
        references=(
            "https://lws.sigs.k8s.io/docs/",
            "https://github.com/kubernetes-sigs/lws/blob/main/docs/examples/sample/README.md",
        ),
        scope="resource",
        safe_to_skip_unknown=True,
    )
    fields = ("restartPolicy",)  # the line a finding points at

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if g.kind != "LeaderWorkerSet":
            return
        policy = known(g.restart_policy, "leaderWorkerTemplate.restartPolicy")
        if policy is None or policy in GROUP_RESTART:
            return  # unset: the LeaderWorkerSet API defaults to RecreateGroupOnPodRestart
        yield hit(g, f"restartPolicy is {policy}, so a failed pod restarts alone and cannot rejoin its group's "
                     "NCCL world")

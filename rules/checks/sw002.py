"""SW002: a workload that looks like vLLM but whose command shardwise cannot read."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta
from ..model import Inventory, LaunchIssue


class VllmCommandNotUnderstood(ObjectRule[LaunchIssue]):
    meta = RuleMeta(
        code="SW002",
        name="vllm-command-not-understood",
        enforcement="advisory",
        severity="medium",
        summary="A container runs a vLLM image but its command is not a vLLM launch shardwise can read.",
        why=(
            "Every capacity, topology and engine-flag check reads the vLLM command line. A container that "
            "starts vLLM through a script file, a wrapper binary or an entrypoint shardwise does not know "
            "gets none of those checks; without this finding it would pass without having been looked at. "
            "A container whose image is only named for vLLM (none of vLLM's own builds), that requests no "
            "accelerator and addresses a server by URL and port in its arguments or environment (a proxy, "
            "router or gateway: `BACKEND_URL: http://llm-vllm:8000`, `vllm-router --prefill http://10.2.1.155:8000`) "
            "is vLLM's client, not an engine, and gets no finding."
        ),
        bad_example=(
            "containers:\n"
            "  - name: vllm\n"
            "    image: vllm/vllm-openai:v0.10.1\n"
            "    command: [/bin/sh, /scripts/start.sh]   # the flags are inside the script"
        ),
        good_example=(
            "containers:\n"
            "  - name: vllm\n"
            "    image: vllm/vllm-openai:v0.10.1\n"
            "    command: [vllm, serve]\n"
            "    args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '8192']"
        ),
        remediation=(
            "Write the launch in the manifest as `vllm serve MODEL [flags]` (or `python3 -m "
            "vllm.entrypoints.openai.api_server --model MODEL [flags]`), directly or inside a `sh -c` script, "
            "so the flags can be checked; or suppress SW002 with the reason the launch cannot be written so."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/deployment/k8s.html",
            "https://docs.vllm.ai/en/latest/cli/serve.html",
        ),
        scope="resource",
    )

    def objects(self, inv: Inventory) -> Iterable[LaunchIssue]:
        return [issue for issue in inv.launch_issues
                if not issue.crash and not issue.mentioned and not issue.other_engine]

    def check_object(self, issue: LaunchIssue, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield Hit(issue.subject, f"cannot check this workload: {issue.reason}", issue.location,
                  tuple(issue.suppressions), undecided=True)

"""SW005: an object that mentions vLLM but from which no workload could be read."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import Hit, LintConfig, ObjectRule, RuleMeta
from ..model import Inventory, LaunchIssue


class VllmMentionedNotRead(ObjectRule[LaunchIssue]):
    meta = RuleMeta(
        code="SW005",
        name="vllm-mentioned-not-read",
        enforcement="advisory",
        severity="medium",
        summary="An object mentions vLLM (an image, a launch, a parallel-size flag) but shardwise read no "
                "workload from it, or it serves a model with another engine that no rule checks.",
        why=(
            "A file whose objects shardwise cannot read as workloads would otherwise end \"no vLLM workload "
            "found\" and pass, though it deploys vLLM: an operator's resource that builds the pod from its "
            "own fields, a runtime template no service in the inputs uses, a launch script kept in a "
            "ConfigMap that no workload of the inputs mounts (a shell script a workload of the inputs runs from "
            "it is read as that workload's command), or a server container written in an annotation's text "
            "that a controller applies to build the server's pod (llm-d's dual-pod.llm-d.ai/server-patch). A "
            "kustomize overlay met while searching a "
            "folder is built, as is a Helm chart met while searching (its default values), where kustomize or helm "
            "is on PATH; one that was not built (no tool, a build error, building switched off) is read as its "
            "bases write it, so an object whose args, command, env, GPUs or node selection the overlay "
            "patches, or a chart's workloads, were not judged as deployed: the record says why it was not built, "
            "and with require_build = true (or --require-build) it blocks. A chart built with its values.yaml "
            "that deploys no vLLM workload where its templates or values.yaml run one (a server its defaults switch "
            "off) is a record too: the values that switch it on were not judged. None of the "
            "capacity, topology or "
            "security checks looked at it; the finding names the "
            "object, what said it runs vLLM, and why it was not read. A workload that serves a model with another "
            "engine (SGLang, Text Generation Inference, LoRAX, LMDeploy, TensorRT-LLM's trtllm-serve, NVIDIA NIM, "
            "and llama.cpp's llama-server or Ollama on a container that requests GPUs) is named too, as is an "
            "operator's resource that serves with one (the NIM operator's NIMService, a DynamoGraphDeployment's "
            "SGLang or TensorRT-LLM workers): shardwise models vLLM only, and a file of them must not read as "
            "checked and fine."
        ),
        bad_example=(
            "apiVersion: example.com/v1\n"
            "kind: LLMServer            # an operator shardwise does not know\n"
            "metadata: {name: chat}\n"
            "spec:\n"
            "  engineImage: vllm/vllm-openai:v0.10.1\n"
            "  engineFlags: \"--tensor-parallel-size 2\""
        ),
        good_example=(
            "# lint what the operator deploys: the pod spec it renders (kubectl get pod -o yaml, or the\n"
            "# operator's dry-run output), or a Deployment written as the operator would write it\n"
            "apiVersion: apps/v1\n"
            "kind: Deployment\n"
            "spec:\n"
            "  template:\n"
            "    spec:\n"
            "      containers:\n"
            "        - name: vllm\n"
            "          image: vllm/vllm-openai:v0.10.1\n"
            "          args: [meta-llama/Llama-3.1-8B-Instruct, --tensor-parallel-size, '2']"
        ),
        remediation=(
            "Lint the object together with what makes it a workload (the services that use a runtime "
            "template, the workload that mounts a script), or lint the pod the operator renders from it; or "
            "suppress SW005 on the object with the reason it deploys no vLLM server."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/deployment/k8s.html",
        ),
        scope="resource",
    )

    def objects(self, inv: Inventory) -> Iterable[LaunchIssue]:
        return [issue for issue in inv.launch_issues if issue.mentioned or issue.other_engine]

    def check_object(self, issue: LaunchIssue, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        if issue.not_built and config.require_build:  # what a search met was not judged as it deploys: fails the run
            yield Hit(issue.subject, f"not read: {issue.reason} (blocking: require_build)", issue.location,
                      tuple(issue.suppressions), level="mandatory")
            return
        yield Hit(issue.subject, f"{'not checked' if issue.other_engine else 'not read'}: {issue.reason}",
                  issue.location, tuple(issue.suppressions), undecided=True)

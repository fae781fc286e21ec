"""SW003: a vLLM command line that makes vLLM exit at start-up."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import DECIDED_AT_UP, Hit, LintConfig, ObjectRule, RuleMeta, group_subject
from ..model import Inventory, LaunchIssue
from ._unseen import held_back_hits


class VllmCommandCrashes(ObjectRule[LaunchIssue]):
    meta = RuleMeta(
        code="SW003",
        name="vllm-command-that-crashes",
        enforcement="mandatory",
        severity="high",
        summary=(
            "The vLLM command line as written makes vLLM exit at start-up (`vllm serve serve MODEL`, a flag and its "
            "value in one list item, a reference Kubernetes leaves as written, an empty model, a flag the image's "
            "vLLM release does not define (a removed or newer flag, a typo), `vllm serve --model X` where that release "
            "refuses it, a value vLLM refuses: `--gpu-memory-utilization 1.5`, `--dtype bfloat17`, an `--hf-overrides` "
            "that is not JSON, a "
            "`--kv-cache-dtype`, a `--mamba-ssm-cache-dtype` or a `--max-model-len 32k` the image's release does not "
            "take, `--quantization awq` or `gptq` on a catalog checkpoint that is not in that format, vLLM's flags "
            "written as the container's `command`, which the container runtime looks for as an executable)."
        ),
        why=(
            "The vllm/vllm-openai image's entrypoint is already `vllm serve`. Args that start with `serve` "
            "again make the command `vllm serve serve MODEL`: vLLM reads `serve` as the model to load and the "
            "real model as a stray argument, and the pod crash-loops without serving a request. Without a shell, "
            "Kubernetes passes each list item of command and args as one word: `- --tensor-parallel-size 2` is one "
            "word with a space, which vLLM's argument parser reads as a positional (it splits only "
            "`--flag=value`) and exits on; Kubernetes expands only `$(VAR)` from the container's env, leaves an "
            "undefined `$(VAR)` as written and never expands `${VAR}`, `$VAR` or an unrendered Helm `{{ }}`, so "
            "vLLM receives them as the value of a flag it cannot convert (or as the model) and exits. These are "
            "broken deployments, not values that are merely unknown: a reference to a Secret, a ConfigMap or the "
            "downward API is resolved by Kubernetes and stays an unknown, and so does an undefined `$(VAR)` in a "
            "pod an operator builds from its template (OME, KServe add env of their own) or in a file of a "
            "kustomization read without building it (an overlay may set the variable). A document in which a "
            "resource count is itself a placeholder (`nvidia.com/gpu: ${GPU_PER_WORKER}`), or whose own name or "
            "namespace holds one (`name: ${JOB_NAME}`; the API server admits only DNS-1123 names), is refused by "
            "Kubernetes as written, and one whose container image holds one (`image: ${IMAGE_NAME}`; no image "
            "reference admits `$` or braces, so the kubelet cannot pull it) never runs as written: it is a template "
            "that envsubst or Helm fills before it is applied, and there "
            "`${VAR}`, `$VAR` and "
            "`{{ }}` in command and args are its placeholders, values not known yet, not this mistake; so is a "
            "`${VAR}` that the same file, or another of the inputs, also writes where nothing expands it (a "
            "PersistentVolume's S3 `bucketName: ${S3_BUCKET_NAME}`): a template tool fills the repository's files. "
            "A value written wholly as an angle-bracket placeholder (`--tensor-parallel-size=<TP_SIZE>`, `vllm serve "
            "<model-name>`, as tutorials write them) is one too, wherever it is: its reader fills it, and no value "
            "vLLM takes is written so. vLLM's "
            "argument parser exits on a flag its release does not define (\"unrecognized arguments\"): flags are "
            "removed (`--device` in 0.10.0, `--guided-decoding-backend` in 0.12.0, `--task` in 0.13.0, "
            "`--swap-space` in 0.18.0) and added (`--async-scheduling` in 0.10.0, `--nnodes` in 0.11.1), so a flag "
            "copied from another release's docs crash-loops a pinned image. That is judged only where the image names "
            "a release whose source was read (a `vllm/vllm-openai` or AWS DLC tag; not `latest`, a nightly, a digest "
            "alone), or where the command pins one with pip (`pip install vllm==0.9.2`: the release that runs, "
            "whatever the image), and no option of that release is or begins with the flag (the parser accepts a "
            "unique prefix). "
            "A flag no release defines (a typo such as `--gpu-memory-utilisation` or `--max-model-length`, a made-up "
            "one) is judged against every option string of the image's release, read from its source (the 65 releases "
            "with a source distribution from 0.5.0 to 0.34.0; 0.15.x has none), naming the closest option. A tag "
            "naming no release read (`latest`, a nightly, a digest alone, a team's own image, a release newer than "
            "0.34.0; a pip pin to a release not read, an install that pins none) is judged only on what every "
            "release read refuses, a flag none defines (vllm-router's "
            "`--intra-node-data-parallel-size` given to `vllm serve`) or a Mamba cache dtype none takes, and "
            "advisory: a newer release, or a build of its own, might take it; so is an Intel Gaudi image "
            "(`opea/vllm-gaudi`, Habana's `vllm-installer`, a `vllm-fork` build), whatever release the annotation "
            "`shardwise.dev/vllm-version` declares: HabanaAI/vllm-fork's parser took `--kv-cache-dtype fp8_inc` before "
            "upstream 0.10.0 and defines options upstream never had (`--use-padding-aware-scheduling`). A value vLLM "
            "refuses as written ends the "
            "same way: "
            "argparse's type conversion or `choices` (`--tensor-parallel-size auto`, `--dtype bfloat17`, an "
            "`--hf-overrides` that json.loads refuses: a lost brace, a Python dict's single quotes), a fraction "
            "outside (0, 1] for `--gpu-memory-utilization`, a parallel size below 1; and, by the image's release, "
            "`--max-model-len 32k` before 0.8.4 and `--max-num-batched-tokens 8k` before 0.9.1 (read with int() "
            "there), an `--hf-overrides` that is JSON but not an object (`null`, `[]`) from 0.10.0, "
            "a `--kv-cache-dtype` before the release that added it (`nvfp4` before 0.20.0), and a "
            "`--mamba-cache-dtype` / `--mamba-ssm-cache-dtype` outside the release's choices (`MambaDType`: `auto`, "
            "`float32` from 0.10.1, `float16` from 0.13.0, `bfloat16` from 0.22.0; case counts). The setting "
            "is then read as unknown and the rest of the workload is still linted. `vllm serve` written as the "
            "command refuses the model given as `--model` from 0.5.5 to 0.11.0 (it "
            "raises \"you should provide the model as a positional argument\"; 0.11.1 and later warn); the "
            "images of those releases run the OpenAI API-server module as their entrypoint, which takes `--model`, "
            "so args alone are fine. `--quantization awq`, `awq_marlin`, `gptq` or `gptq_marlin` reads a checkpoint "
            "already in that format: on a catalog checkpoint with 16-bit weights and no quantization_config vLLM "
            "raises \"Cannot find the config file for awq\" while loading (get_quant_config), and on one whose "
            "quantization_config says fp8 or compressed-tensors ModelConfig._verify_quantization raises \"Quantization "
            "method specified in the model config (fp8) does not match ...\", since no override method claims it "
            "(read at 0.6.6.post1 to 0.34.0); so is `--quantization fp8` or `bitsandbytes` on one whose "
            "quantization_config says awq or gptq (the override methods take only their own names there). "
            "`--quantization fp8` or `bitsandbytes` on a 16-bit checkpoint quantises at load and starts; a "
            "checkpoint known only by its name, a path, a base-model annotation, or "
            "another `--revision` is not judged. While this blocks, the workload's capacity and topology rules do "
            "not say they cannot decide on the value vLLM refuses (it is no unknown): the report holds them back in "
            "one advisory finding at this finding's line, and they are checked once the command starts. A container "
            "whose `command` starts with a flag (`command: [--model, mistralai/Mistral-7B-Instruct-v0.1, --port, "
            "\"8000\"]`) never reaches vLLM at all: Kubernetes runs `command` in place of the image's ENTRYPOINT, "
            "without a shell, and hands `args` to it (the Container API: \"Entrypoint array. Not executed within a "
            "shell. The container image's ENTRYPOINT is used if this is not provided\"), so the runtime looks for an "
            "executable named `--model`, finds none and the container fails to start, restart after restart. That is "
            "judged where the pod runs as written (a Deployment, StatefulSet, Job, Pod or LeaderWorkerSet applied as "
            "it is, not a kustomization's base or a patch, nor an operator's template); elsewhere SW002 says the "
            "command starts no server shardwise can read. An option that takes no value at the image's release (a "
            "switch: argparse's `store_true` or `BooleanOptionalAction`, read from each release's source; "
            "`--enable-chunked-prefill` took an optional one in 0.5.3 to 0.8.4) written with one exits the same way: "
            "`--enforce-eager=true` (\"ignored explicit argument 'true'\"), or `--enforce-eager true` once the model "
            "is given (\"unrecognized arguments: true\"); on an image naming no release read, advisory where the "
            "option is a switch at every release read. vLLM production-stack's router (`vllm-router`) exits the "
            "same way on a `--routing-logic` its argparse `choices` do not hold (`least_loaded`, `round-robin`): "
            "advisory, since its image tags are builds of main that name no release, and a later build may add one."
        ),
        bad_example=(
            "containers:\n"
            "  - name: vllm\n"
            "    image: vllm/vllm-openai:v0.10.1\n"
            "    args: [serve, meta-llama/Llama-3.1-8B-Instruct]"
        ),
        good_example=(
            "containers:\n"
            "  - name: vllm\n"
            "    image: vllm/vllm-openai:v0.10.1\n"
            "    args: [meta-llama/Llama-3.1-8B-Instruct]"
        ),
        remediation=(
            "Remove `serve` from args when the image's entrypoint is `vllm serve`, or give the whole "
            "command as `command: [vllm, serve]` with the model first in args. Write a flag and its value as two "
            "list items, or as one `--flag=VALUE`, never as one item with a space in it. Write only the flags the "
            "image's vLLM release defines (`vllm serve --help` in that image): drop a removed flag or use its "
            "replacement, or pin a release that has a newer flag. Give a value the release takes (`vllm serve --help` "
            "lists a flag's choices). Write vLLM's flags under `args`, not `command`, to keep the image's entrypoint."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/deployment/docker.html",
            "https://docs.vllm.ai/en/latest/cli/serve.html",
            "https://docs.python.org/3/library/argparse.html#allow-abbrev",
            "https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/",
        ),
        scope="resource",
    )

    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        yield from held_back_hits(inv, config, "whether vLLM accepts its command line")
        for u in inv.unknown_words:  # a word not known at preview where a flag may stand: vLLM may refuse it
            g, path = u.group, u.path
            field = "command" if path.rsplit(".", 1)[-1].startswith("command") else "args"
            word = f"word {path.rsplit('[', 1)[1].rstrip(']')} of its {field}" if path.endswith("]") else f"its {field}"
            what = f"{word} ({path}) is not known, and may be a flag vLLM refuses"
            yield Hit(group_subject(g), f"cannot decide: whether vLLM accepts its command line: {what} (a computed "
                      f"value at preview; {DECIDED_AT_UP})",
                      g.main_container.location if g.main_container else g.location, tuple(g.suppressions),
                      undecided=True, level="advisory")

    def objects(self, inv: Inventory) -> Iterable[LaunchIssue]:
        return [issue for issue in inv.launch_issues if issue.crash]

    def check_object(self, issue: LaunchIssue, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield Hit(issue.subject, issue.reason, issue.location, tuple(issue.suppressions),
                  level="advisory" if issue.advisory else None)

"""SW004: a workload whose model shardwise does not know (or matched only by the name of a path)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..capacity.group import encoder_fit, gpu_name, vllm_version
from ..catalog import unsized
from ..engine import GroupRule, Hit, LintConfig, Rule, RuleMeta, hit
from ..model import Inventory, ModelNotKnown, ServingGroup, Undecidable
from ..model.vocab import ANN_BASE_MODEL


def rules_needing_the_model(g: ServingGroup, inv: Inventory, config: LintConfig,
                            rules: Iterable[Rule]) -> list[str]:
    """Codes of the rules that stayed silent on ``g`` because its model is not known.

    Each group rule is asked about this group alone; the ones that stop on the unknown model are the
    ones that could not run. Their hits are not kept (they report themselves in the run).
    """
    codes = []
    for rule in rules:
        if not isinstance(rule, GroupRule) or rule.meta.code == "SW004" or not rule.applies_to(g):
            continue
        try:
            list(rule.check_group(g, inv, config))
        except ModelNotKnown:
            codes.append(rule.meta.code)
        except Exception:  # noqa: BLE001,S112 - another unknown value or a crash: the rule reports it itself
            continue
    return codes


#: what the weights-only judgement of an encoder leaves out (read in 0.29.0's gpu_model_runner.py, round catalog20)
ENCODER_PEAK = ("the pooling runner's profile peak (a dummy run over max_num_batched_tokens, then the pooler once per "
                "task) is not modelled, so whether it starts is not decided")


def _encoder_note(g: ServingGroup) -> str:
    """An encoder-only embedder whose config.json was read: its weights-only judgement (round catalog21)."""
    try:
        fit = encoder_fit(g)
    except Undecidable:  # an unknown --dtype or layout: the rule that reads it says so
        return ""
    if fit is None:
        return ""
    head = fit.text(gpu_name(g)) if fit.why else f"judged on its weights alone: {fit.text(gpu_name(g))}"
    return f"; {head}; {ENCODER_PEAK}"


class ModelNotKnownToShardwise(GroupRule):
    meta = RuleMeta(
        code="SW004",
        name="model-not-known",
        enforcement="advisory",
        severity="medium",
        summary="A workload serves a model shardwise cannot size: not in the catalog, not taught, or only "
                "matched by the name of a path.",
        why=(
            "The capacity checks (weights fit, KV cache, sharding) and the model checks (heads divisible by "
            "TP, experts) need the model's shape: layers, heads, parameters, precision. For a model shardwise "
            "does not know they cannot run, and a workload nobody could check must not pass as if it had "
            "been checked. A model given as a path (/models/llama-3.1-8b-instruct) is sized as the catalog "
            "model its name matches only after saying so: the directory could hold a different model."
        ),
        bad_example=(
            "containers:\n"
            "  - name: vllm\n"
            "    image: vllm/vllm-openai:v0.10.1\n"
            "    args: [acme/support-bot-v7, --tensor-parallel-size, '2']   # a private fine-tune"
        ),
        good_example=(
            "metadata:\n"
            "  annotations:\n"
            "    # a catalog id, or the repository path of its config.json\n"
            "    shardwise.dev/base-model: meta-llama/Llama-3.1-8B-Instruct\n"
            "spec:\n"
            "  containers:\n"
            "    - name: vllm\n"
            "      args: [acme/support-bot-v7, --tensor-parallel-size, '2']"
        ),
        remediation=(
            "Teach shardwise the model: annotate the workload with shardwise.dev/base-model naming the catalog "
            "model it is a copy of, or the repository path of its config.json; or put its config.json in a "
            "models directory (config key model_dirs, laid out <dir>/<org>/<name>/config.json, with the "
            "model.safetensors.index.json beside it if you have it); or keep its config.json in the local "
            "Hugging Face cache (HF_HOME), which `shardwise lint --fetch-configs` fills in a CI with network "
            "access. With `unknown = \"fail\"` in the configuration this finding blocks."
        ),
        references=(
            "https://huggingface.co/docs/huggingface_hub/guides/manage-cache",
            "https://huggingface.co/docs/transformers/main_classes/configuration",
        ),
        scope="resource",
        mandatory_when='with `unknown = "fail"` in the configuration',
    )

    def __init__(self, peers: Callable[[], Iterable[Rule]] = tuple) -> None:
        #: The rules of the run, asked which of them the unknown model held back (the registry passes its
        #: own list, which holds this rule too: a rule never imports the registry).
        self.peers = peers

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        annotated = g.annotations.get(ANN_BASE_MODEL)
        where = g.at(f"annotation:{ANN_BASE_MODEL}") if annotated else g.at("model")
        if g.model is None and g.model_unknown:
            codes = rules_needing_the_model(g, inv, config, self.peers())
            skipped = (f"{', '.join(codes)} could not run on it" if codes
                       else "no rule needed it on this workload")
            why = g.model_unknown
            if unsized.is_reason(why):
                release = vllm_version(g)
                why = f"{why}; {unsized.release_note(release.version, release.note)}"
            why += _encoder_note(g)
            h = hit(g, f"shardwise does not know the model: {why}; {skipped}",
                    where,
                    level="mandatory" if config.unknown_configured and config.unknown_is_failure else None)
            yield Hit(h.subject, h.message, h.location, h.suppressions, level=h.level, undecided=True)
        elif g.model is not None and g.model_assumed:
            yield hit(g, f"the model {g.engine.model!r} is a path; shardwise sized it as the catalog model "
                         f"{g.model_assumed}, which its name matches. Confirm it with the annotation "
                         f"{ANN_BASE_MODEL}: {g.model_assumed} (or the path of its config.json)", where,
                      level="advisory")

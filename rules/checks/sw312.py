"""SW312: runtime LoRA loading switched on for an API that checks no key and has no gateway in front."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta, group_subject
from ..model import FROM_VALUE_SOURCE, UNKNOWN, Inventory, ServingGroup, Undecidable, UnknownEnv
from ._env import env_location
from ._net import mesh_only, routes_to
from ._unseen import unseen_hits

LORA = "VLLM_ALLOW_RUNTIME_LORA_UPDATING"


class RuntimeLoraWithoutAuth(GroupRule):
    meta = RuleMeta(
        code="SW312",
        name="runtime-lora-without-auth",
        enforcement="advisory",
        severity="high",
        summary=(
            "A vLLM server allows runtime LoRA loading (VLLM_ALLOW_RUNTIME_LORA_UPDATING) but checks no API key "
            "and no Ingress or HTTPRoute routes to it."
        ),
        why=(
            "With VLLM_ALLOW_RUNTIME_LORA_UPDATING on, vLLM serves /v1/load_lora_adapter and "
            "/v1/unload_lora_adapter: any caller can load an adapter from a path or a Hugging Face repository "
            "of its choosing into the server, change what it answers for every user, and fill GPU memory. vLLM "
            "checks --api-key (or VLLM_API_KEY) on these routes; without a key and without a gateway that "
            "authenticates in front, whoever reaches the pod's port can call them."
        ),
        bad_example=("env:\n  - {name: VLLM_ALLOW_RUNTIME_LORA_UPDATING, value: 'True'}\n"
                     "args: [--model, ..., --enable-lora]"),
        good_example=("env:\n  - {name: VLLM_ALLOW_RUNTIME_LORA_UPDATING, value: 'True'}\n"
                      "  - name: VLLM_API_KEY\n    valueFrom: {secretKeyRef: {name: vllm-api-key, key: key}}"),
        remediation=(
            "Set VLLM_API_KEY from a Secret (vLLM then requires it on every /v1 route), put the server behind a "
            "gateway that authenticates, or load adapters at start-up with --lora-modules instead."
        ),
        references=(
            "https://docs.vllm.ai/en/latest/features/lora.html#dynamically-serving-lora-adapters",
            "https://docs.vllm.ai/en/latest/configuration/env_vars.html",
        ),
        scope="resource",
        safe_to_skip_unknown=True,
        applies_to_plans=False,
    )


    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        if config.share is None or config.share[0] == 0:  # once, not in every share of a split run
            # a workload whose containers are not known yet at preview: what this rule reads is not either
            yield from unseen_hits(inv, "whether its containers allow runtime LoRA loading without an API key")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        c = g.main_container
        if c is None:
            return
        value = c.env.get(LORA)
        if value is UNKNOWN:
            # the env list itself not known (at preview): the variable may not be set, nor come from a Secret (review34)
            source = None if isinstance(c.env, UnknownEnv) and LORA not in c.env.keys() else FROM_VALUE_SOURCE
            u = Undecidable(f"{LORA} of container `{c.name}`",
                            *([f"{source}; whether runtime LoRA loading is on decides whether the API needs a key"]
                              if source is not None else []))
            yield Hit(group_subject(g), f"cannot decide: {u.text}", env_location(g, c, LORA),
                      tuple(g.suppressions), undecided=True)
            return
        if not isinstance(value, str) or value.strip().lower() not in ("1", "true"):
            return
        if "VLLM_API_KEY" in c.env or g.engine.extra.get("api_key") is not None or c.env_from:
            return  # a key is checked (or may come from an envFrom source: SW306 and SW310 speak of those)
        undecided: Undecidable | None = None
        for ing in inv.ingresses:
            try:
                if routes_to(inv, ing, g):
                    return
            except Undecidable as u:  # whether THIS group is behind it is not known: another's unknown never counts
                undecided = undecided or u
        if undecided is not None:
            yield Hit(group_subject(g), f"cannot decide: {undecided.text} (whether an Ingress routes to it); "
                                        f"container `{c.name}` sets {LORA}={value.strip()} with no API key",
                      env_location(g, c, LORA), tuple(g.suppressions), undecided=True)
            return
        yield Hit(group_subject(g), f"container `{c.name}` sets {LORA}={value.strip()} with no API key and no "
                                    f"Ingress or HTTPRoute in front{_mesh_routes(inv, g)}, so anyone who reaches its "
                                    "port can load LoRA adapters at run time",
                  env_location(g, c, LORA), tuple(g.suppressions))


def _mesh_routes(inv: Inventory, g: ServingGroup) -> str:
    """What fronts ``g`` where only mesh routes do (GAMMA: an HTTPRoute whose parents are Services routes what the
    mesh's clients send to them, east-west, and no Gateway publishes or authenticates it: gateway-api v1.2.0
    geps/gep-1426), said so; "" where none does. "No HTTPRoute in front" read as if no route named it (mend29)."""
    named: list[str] = []
    for ing in inv.ingresses:
        if not mesh_only(ing):
            continue
        try:
            if routes_to(inv, ing, g, mesh=True):
                named.append(f"`{ing.namespace}/{ing.name}`")
        except Undecidable:
            continue  # whether it names this group is not known: nothing to say of it
    if not named:
        return ""
    if len(named) == 1:
        return (f" (HTTPRoute {named[0]} names it, but only as a mesh route: its parents are Services (GAMMA), so it "
                "routes what the mesh's clients send to them and is no gateway that could authenticate those clients)")
    return (f" (HTTPRoutes {', '.join(named)} name it, but only as mesh routes: their parents are Services (GAMMA), so "
            "they route what the mesh's clients send to them and are no gateways that could authenticate those "
            "clients)")

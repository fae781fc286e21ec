"""OCI AI Blueprints recipes (oracle-quickstart/oci-ai-blueprints): the JSON a user posts to the blueprints API to
deploy a container on OKE, read at v1.0.11 (``docs/custom_blueprints/blueprint_json_schema.json``'s
``recipe_payload``, ``docs/api_documentation.md``): ``recipe_mode`` (``service`` for inference), ``recipe_image_uri``,
``recipe_container_command_args`` (passed to the image's entrypoint, ``$(key)`` filled from
``recipe_container_env``'s ``key``/``value`` pairs), ``recipe_node_shape`` (an OCI shape: ``VM.GPU.A10.2``),
``recipe_nvidia_gpu_count``, ``recipe_replica_count`` and ``recipe_shared_memory_volume_size_limit_in_mb``.

The schema names the fields, but how the blueprints control plane turns them into pods (how it places them on the
shape's nodes, how it spreads a multi-node recipe, where the shared memory is mounted, the probes) is not in the
repository (no file but the docs and samples uses the recipe's fields at v1.0.11). The shapes themselves are in the
GPU catalog (``catalog/hardware.py``). A recipe that names vLLM (its image, or a vLLM flag in its arguments) is
therefore not read as a workload: SW005 names the recipe and what it sets, never a silent pass. A recipe that names
no vLLM is skipped as before, saying what it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..model import Inventory, LaunchIssue, Location
from ..vllm.args import is_vllm_image
from .kinds import OCI_RECIPE

_FLAG = re.compile(r"^--(?:model|tensor-parallel-size|pipeline-parallel-size|max-model-len|gpu-memory-utilization)\b")


def _line(text: str, key: str) -> int | None:
    at = text.find(f'"{key}"')
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def _env(data: Mapping[str, Any]) -> dict[str, str]:
    env = data.get("recipe_container_env")
    out: dict[str, str] = {}
    for item in env if isinstance(env, list) else []:
        if isinstance(item, Mapping) and isinstance(item.get("key"), str):
            out[item["key"]] = str(item.get("value"))
    return out


def recipe_inventory(data: Mapping[str, Any], file: str, text: str) -> Inventory:
    """The inventory of one recipe: an SW005 record when it names vLLM, else a skipped file."""
    inv = Inventory()
    image = data.get("recipe_image_uri")
    args = [a for a in data.get("recipe_container_command_args") or [] if isinstance(a, str)] \
        if isinstance(data.get("recipe_container_command_args"), list) else []
    flags = [a for a in args if _FLAG.match(a)]
    if not (isinstance(image, str) and is_vllm_image(image)) and not flags:
        inv.skipped_files.append((file, f"{OCI_RECIPE} that names no vLLM image or flag"))
        return inv
    env = _env(data)
    words = [re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), a) for a in args]
    sets = [f"{key} {data[key]!r}" for key in ("recipe_node_shape", "recipe_nvidia_gpu_count", "recipe_amd_gpu_count",
                                                 "recipe_replica_count") if key in data]
    if words:
        sets.append(f"arguments `{' '.join(words)}`")
    what = (f"the vLLM image {image}" if isinstance(image, str) and is_vllm_image(image)
            else f"the vLLM flag {flags[0]}")
    name = data.get("deployment_name") or data.get("recipe_id") or "unnamed"
    why = (f"it is an {OCI_RECIPE} ({'; '.join(sets) or 'no shape or GPU count'}), which the blueprints control "
           "plane turns into pods on OKE in a way the blueprints repository does not publish (only the recipe's "
           "schema: how the pods are placed on the shape's nodes, how a multi-node recipe is spread and where the "
           "shared memory is mounted are not given): shardwise does not read recipes, so lint the Deployment the "
           "blueprint creates (kubectl get deployment -o yaml)")
    where = Location(file, _line(text, "recipe_image_uri" if isinstance(image, str) and is_vllm_image(image)
                                 else "recipe_container_command_args"))
    inv.launch_issues.append(LaunchIssue(f"{OCI_RECIPE} {name}", "", f"it mentions vLLM ({what}) but {why}", where,
                                         mentioned=True))
    inv.sources.append(file)
    return inv

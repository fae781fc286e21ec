"""The NVIDIA NIM operator's ``NIMService`` (``apps.nvidia.com/v1alpha1``): a model served by NIM, whose pod the
operator builds from the resource's own fields. It gets SW005's "not checked" word, as a NIM container in a
Deployment does (:mod:`.engines`), naming the kind and the engine.

What the resource holds (NVIDIA/k8s-nim-operator v3.1.2, ``config/crd/bases/apps.nvidia.com_nimservices.yaml``;
``config/samples/nim/serving/standalone/basic/llm.yaml``): ``spec.image`` (``repository``, ``tag``; required),
``spec.storage.nimCache`` (``name`` of the NIMCache that downloaded the model, ``profile``), ``spec.resources``,
``spec.replicas``, ``spec.multiNode``, ``spec.env``, ``spec.expose``. NIM's server picks its backend at start-up
from the model profile; where ``profile`` names a backend (the multi-LLM sample's ``tensorrt_llm``; a NIMCache's
``engine`` is ``tensorrt_llm`` or ``vllm``), the word says which. A NIMCache only downloads (``mentions._NO_SERVER``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...model import Inventory, LaunchIssue, Location
from .fields import as_map, read_annotations, suppressions_from
from .parse import Lines
from .serving import key_location

#: Profile names that are a backend's (the operator's samples write ``profile: 'tensorrt_llm'``).
_BACKENDS = {"tensorrt_llm": "TensorRT-LLM", "vllm": "vLLM", "sglang": "SGLang"}
#: An image repository that names NIM's vLLM build (``nvcr.io/nim/vllm-oss-nim-llm``, the EPP sample's
#: ``…/vllm-oss-nim-llm-4-devel-llama3.1-8b-instruct``): vLLM as a word of its name.
_VLLM_BUILD = re.compile(r"(?:^|[^a-z0-9])vllm(?:[^a-z]|$)", re.IGNORECASE)


def add_nim_service(obj: Mapping[str, Any], loc: Location, inv: Inventory, lines: Lines | None) -> bool:
    """One SW005 record for the NIMService: the operator's pod serves a model with NIM, which no rule checks."""
    meta = as_map(obj.get("metadata"))
    spec = as_map(obj.get("spec"))
    image = as_map(spec.get("image"))
    repository, tag = image.get("repository"), image.get("tag")
    shown = f"{repository}:{tag}" if isinstance(repository, str) and isinstance(tag, (str, int, float)) else (
        repository if isinstance(repository, str) else None)
    profile = as_map(as_map(spec.get("storage")).get("nimCache")).get("profile")
    backend = _BACKENDS.get(profile.strip().lower()) if isinstance(profile, str) else None
    build = isinstance(repository, str) and _VLLM_BUILD.search(repository.rsplit("/", 1)[-1][:256]) is not None
    seen = f"its image is {shown}" if shown else "the operator runs NIM's image"
    picks = (f"its NIM cache profile `{profile}` runs {backend}" if backend else
             "NIM's build of vLLM, started by NIM's own server from its profile, not from vLLM flags" if build else
             "NIM picks its backend (TensorRT-LLM, vLLM or SGLang) by profile at start-up")
    ann, ann_lines = read_annotations(meta)
    subject = f"NIMService {meta.get('namespace') or 'default'}/{meta.get('name') or 'unnamed'}"
    inv.launch_issues.append(LaunchIssue(
        subject, "", (
            f"the NIM operator's NIMService serves a model with NVIDIA NIM ({seen}; {picks}), not with vLLM's own "
            f"server whose flags the object holds: shardwise checks vLLM servers, so no capacity, topology, network "
            f"or reliability rule looked at this workload"),
        key_location(spec, "image", loc.file, loc), suppressions=suppressions_from(ann, ann_lines, loc.file, loc.line),
        namespace=str(meta.get("namespace") or ""), other_engine="NVIDIA NIM"))
    return True

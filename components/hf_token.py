"""The Hugging Face token of a workload: which models need one, and the Secret that carries it.

vLLM downloads the weights from the Hugging Face Hub at start-up; a *gated* repository answers 401/403
without a token of an account that accepted its terms, and the pod crash-loops until the rollout times
out. The components therefore require, for a gated model, either the token (``hf_token``, a Pulumi
secret: they create the Kubernetes Secret ``hf_token_secret`` with key ``HF_TOKEN`` from it) or the word
that the Secret is made outside the program (``hf_token_secret_exists``: External Secrets from AWS
Secrets Manager, a platform team), and fail at preview otherwise.

Which repositories are gated is not in the catalog (the Hub says so only to a signed-in request): it is
this list of organisations whose *every* repository of the family is gated, each with the page that
says so. Re-uploads by other organisations (``hugging-quants/…``) set their own gate and are not
listed; a model outside the list may still be gated, and then needs ``hf_token`` just the same.
"""

from __future__ import annotations

import re
from typing import Any

#: (pattern on the lower-cased repository id, what gates it, the page that says so)
GATED: tuple[tuple[str, str, str], ...] = (
    (r"^meta-llama/", "Meta's Llama repositories ask every account to accept the Llama Community License "
     "before download", "https://huggingface.co/meta-llama"),
    (r"^google/[a-z]*gemma", "Google's Gemma repositories ask every account to agree to Google's usage "
     "license before download", "https://huggingface.co/google/gemma-2-9b-it"),
)


def gated(model: str) -> str | None:
    """Why ``model`` (a Hugging Face repository id) is gated, with the source; None when it is not listed."""
    for pattern, why, source in GATED:
        if re.match(pattern, model.strip().lower()):
            return f"{why} ({source})"
    return None


def token_findings(spec: Any, token_given: bool, secret_exists: bool, prefix: str = "",
                   token_path: str = "hf_token", exists_path: str = "hf_token_secret_exists",
                   ) -> list[tuple[str, str]]:
    """Problems of a workload spec's Hugging Face token: a gated model without a token or a Secret made
    elsewhere; a token with no Secret name to put it in."""
    model = str(spec.engine.model)
    why = gated(model)
    if token_given and not spec.hf_token_secret:
        return [(f"{prefix}hf_token_secret", "hf_token was given but hf_token_secret is null: name the Secret "
                 "the component creates with it")]
    if why is None or token_given or secret_exists and spec.hf_token_secret:
        return []
    if not spec.hf_token_secret:
        return [(f"{prefix}hf_token_secret", f"`{model}` is gated: {why}; without a token the pods crash-loop "
                 f"on the download: name the Secret (key HF_TOKEN) and give {token_path}")]
    return [(token_path, f"`{model}` (at {prefix}engine.model) is gated: {why}; without a token the pods "
             f"crash-loop on the download until the rollout times out. Nothing creates the Secret "
             f"`{spec.hf_token_secret}`: give {token_path} (a Pulumi secret, e.g. `pulumi config set --secret "
             f"shardwise:hfToken …`), or set {exists_path} when the Secret is made outside this program")]


def secret_metadata(name: str, namespace: Any) -> dict[str, Any]:
    """The metadata of the Secret that carries the token under ``HF_TOKEN`` (the key the pods read)."""
    return {"name": name, "namespace": namespace, "labels": {"app.kubernetes.io/managed-by": "shardwise"}}

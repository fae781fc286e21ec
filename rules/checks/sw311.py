"""SW311: TLS certificate verification switched off in a vLLM serving container."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine import GroupRule, Hit, LintConfig, RuleMeta
from ..model import FROM_VALUE_SOURCE, Inventory, ServingGroup
from ._env import switch_hits
from ._unseen import unseen_hits

#: Variables that switch verification off, and the values that do: Python's PEP 493 switch, and the CA
#: bundles `requests` (and so huggingface_hub) reads, set empty.
_OFF: dict[str, frozenset[str]] = {
    "PYTHONHTTPSVERIFY": frozenset({"0"}),
    "CURL_CA_BUNDLE": frozenset({""}),
    "REQUESTS_CA_BUNDLE": frozenset({""}),
}


class TlsVerificationDisabled(GroupRule):
    meta = RuleMeta(
        code="SW311",
        name="tls-verification-disabled",
        enforcement="advisory",
        severity="high",
        summary=(
            "A vLLM container switches TLS certificate verification off: PYTHONHTTPSVERIFY=0, or an empty "
            "CURL_CA_BUNDLE or REQUESTS_CA_BUNDLE."
        ),
        why=(
            "A serving container downloads its weights, tokenizer and configuration (often with "
            "trust_remote_code) over HTTPS from the Hugging Face Hub or an object store. PYTHONHTTPSVERIFY=0 "
            "turns off certificate checks in Python builds that honour PEP 493, and an empty CURL_CA_BUNDLE or "
            "REQUESTS_CA_BUNDLE is the well-known way to make requests (and huggingface_hub, which uses it) skip "
            "them: anyone on the network path can then serve other weights or code to the server. A proxy "
            "that re-signs traffic needs its CA bundle, not verification switched off."
        ),
        bad_example="env:\n  - {name: CURL_CA_BUNDLE, value: ''}\n  - {name: PYTHONHTTPSVERIFY, value: '0'}",
        good_example=("env:\n  - {name: REQUESTS_CA_BUNDLE, value: /etc/ssl/corp/ca-bundle.pem}\n"
                      "volumeMounts:\n  - {name: corp-ca, mountPath: /etc/ssl/corp, readOnly: true}"),
        remediation=(
            "Remove the variables; where a TLS-intercepting proxy is in the path, mount its CA bundle and point "
            "REQUESTS_CA_BUNDLE (or SSL_CERT_FILE) at it."
        ),
        references=(
            "https://peps.python.org/pep-0493/",
            "https://requests.readthedocs.io/en/latest/user/advanced/#ssl-cert-verification",
        ),
        scope="resource",
        safe_to_skip_unknown=True,
        applies_to_plans=False,
    )


    def check(self, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        yield from super().check(inv, config)
        if config.share is None or config.share[0] == 0:  # once, not in every share of a split run
            # a workload whose containers are not known yet at preview: what this rule reads is not either
            yield from unseen_hits(inv, "whether its containers switch TLS certificate verification off")

    def check_group(self, g: ServingGroup, inv: Inventory, config: LintConfig) -> Iterable[Hit]:
        def judge(name: str, value: str, via: str) -> str | None:
            if value.strip() not in _OFF[name]:
                return None
            what = f"sets {name} empty" if not value.strip() else f"sets {name}={value.strip()}"
            return f"{what}{via}, which switches TLS certificate verification off for the model downloads"

        yield from switch_hits(inv, g, _OFF, judge,
                               f"{FROM_VALUE_SOURCE}; an empty value switches TLS verification off")

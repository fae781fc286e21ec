"""An OpenShift AI (Open Data Hub) HardwareProfile of the inputs applied as its admission webhook applies it
(adapters/k8s/hwprofiles.py; opendatahub-operator internal/webhook/hardwareprofile/mutating.go at 0c0c991). The
fixture is tests/fixtures/rules/SW204/hardware-profile-inputs.yaml (its findings: .expected beside it)."""

from __future__ import annotations

from repo_paths import ROOT
from shardwise.rules.adapters import read_inputs
from shardwise.rules.model import Toleration

FIXTURE = ROOT / "tests" / "fixtures" / "rules" / "SW204" / "hardware-profile-inputs.yaml"


def _groups(paths, jobs=1):
    return {g.name: g for g in read_inputs([str(p) for p in paths], jobs=jobs).groups}


def test_the_named_profile_gives_its_default_count_node_selector_and_tolerations():
    groups = _groups([FIXTURE])
    got = {name: (g.gpus_per_pod, g.accelerator_resource) for name, g in groups.items()}
    assert got == {
        "granite-one-gpu": (1, "nvidia.com/gpu"),
        "qwen-tp2-one-gpu": (1, "nvidia.com/gpu"),
        "qwen-tp2-two-gpus": (2, "nvidia.com/gpu"),  # defaultCount "2": an int-or-string
        "granite-profile-elsewhere": (None, None),  # a100-x8 is in no input
        "granite-dashboard-profile": (None, None),  # dashboard.opendatahub.io: the kind the webhook does not read
        "llama-llmisvc-tp4": (2, "nvidia.com/gpu"),  # no namespace annotation: the service's own namespace
        "granite-cpu-profile": (None, None),  # cpu-small names no accelerator: the webhook adds none
    }
    assert {name: g.hardware_profile for name, g in groups.items()} == {
        "granite-one-gpu": "redhat-ods-applications/nvidia-gpu",
        "qwen-tp2-one-gpu": "redhat-ods-applications/nvidia-gpu",
        "qwen-tp2-two-gpus": "kserve-workshop/l40s-x2",
        "granite-profile-elsewhere": None,
        "granite-dashboard-profile": None,
        "llama-llmisvc-tp4": "kserve-workshop/l40s-x2",
        "granite-cpu-profile": "redhat-ods-applications/cpu-small",
    }
    g = groups["granite-one-gpu"]
    assert g.node_selector == {"nvidia.com/gpu.product": "NVIDIA-L40S"}
    assert g.tolerations == [Toleration("nvidia.com/gpu", "Exists", None, "NoSchedule")]
    assert groups["qwen-tp2-two-gpus"].node_selector == {}  # l40s-x2 sets no node scheduling
    assert groups["qwen-tp2-one-gpu"].at("resources").line == 39  # the profile's defaultCount


def test_the_profile_in_another_file_is_applied_alike(tmp_path):
    text = FIXTURE.read_text(encoding="utf-8")
    docs = text.split("\n---\n")
    (tmp_path / "profiles.yaml").write_text("\n---\n".join(docs[:3]) + "\n", encoding="utf-8")
    (tmp_path / "services.yaml").write_text("\n---\n".join(docs[3:]), encoding="utf-8")
    for jobs in (1, 2):
        groups = _groups([tmp_path / "services.yaml", tmp_path / "profiles.yaml"], jobs=jobs)
        assert groups["qwen-tp2-one-gpu"].gpus_per_pod == 1
        assert groups["qwen-tp2-two-gpus"].gpus_per_pod == 2

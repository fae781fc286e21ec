"""The NVIDIA device plugin's configuration held in a ConfigMap of the inputs (adapters/k8s/configmaps.py): each key
that is a configuration (``version: v1`` with ``sharing`` or ``flags``) is read into ``ConfigMap.device_plugin`` as
how it shares ``nvidia.com/gpu`` (github.com/NVIDIA/k8s-device-plugin, "Shared Access to GPUs"). The rules' use of it
is in tests/fixtures/rules/SW105/time-slicing-*.yaml."""

from __future__ import annotations

from repo_paths import ROOT
from shardwise.rules.adapters import read_inputs

FIXTURES = ROOT / "tests" / "fixtures" / "rules" / "SW105"


def _plugin_configs(path):
    return {cm.name: cm.device_plugin for cm in read_inputs([str(path)], jobs=1).config_maps}


def test_each_configuration_says_how_it_shares_the_gpu():
    assert _plugin_configs(FIXTURES / "time-slicing-config.yaml") == {
        "time-slicing-config": {"any": ("time-slicing", 4)},
    }
    assert _plugin_configs(FIXTURES / "time-slicing-per-node.yaml") == {
        "device-plugin-config": {
            "t4": ("time-slicing", 4),
            "a100-whole": None,  # flags only: every GPU advertised whole
            "l4-renamed": None,  # renameByDefault: the shares are nvidia.com/gpu.shared, not nvidia.com/gpu
        },
    }


def test_values_that_are_not_a_configuration_or_are_malformed(tmp_path):
    f = tmp_path / "cm.yaml"
    f.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mixed, namespace: gpu-operator}\ndata:\n"
        "  script: |-\n    echo version sharing flags\n"  # mentions the words, is no configuration
        "  mps: |-\n    version: v1\n    sharing:\n      mps:\n        resources:\n"
        "          - name: nvidia.com/gpu\n            replicas: 2\n"
        "  other-resource: |-\n    version: v1\n    sharing:\n      timeSlicing:\n        resources:\n"
        "          - name: nvidia.com/mig-1g.10gb\n            replicas: 3\n"
        "  one-replica: |-\n    version: v1\n    sharing:\n      timeSlicing:\n        resources:\n"
        "          - name: nvidia.com/gpu\n            replicas: 1\n"
        "  renamed-one: |-\n    version: v1\n    sharing:\n      timeSlicing:\n        resources:\n"
        "          - name: nvidia.com/gpu\n            rename: gpu-shared\n            replicas: 4\n"
        "  quoted-replicas: |-\n    version: v1\n    sharing:\n      timeSlicing:\n        resources:\n"
        "          - name: nvidia.com/gpu\n            replicas: \"4\"\n"
        "  hostile: |-\n    version: v1\n    sharing:\n      timeSlicing:\n        resources: 7\n"
        "  v2: |-\n    version: v2\n    sharing: {}\n"
        "  broken: |-\n    version: v1\n    sharing: [unclosed\n"
    )
    assert _plugin_configs(f) == {"mixed": {
        "mps": ("mps", 2),
        "other-resource": None,
        "one-replica": None,
        "renamed-one": None,
        "quoted-replicas": None,  # the plugin's config parser wants an integer (replicas is an int field)
        "hostile": None,
    }}

"""CNDI's cndi_config.yaml and templates (polyseam/cndi v3.1.1): the manifests under ``cluster_manifests`` are read as
the Kubernetes objects ``cndi overwrite`` writes and Argo CD applies; a template's ``{{ $cndi.get_prompt_response(...) }}``
is a value not known yet; block references and Helm applications are not read (corpus45: templates/vllm.yaml was
skipped as "YAML that is not a Kubernetes object" and its vLLM Deployment passed in silence).

The rule-level behaviour is in tests/fixtures/rules/SW101/cndi-config.yaml and cndi-template.yaml.
"""

from __future__ import annotations

from repo_paths import FIXTURES
from shardwise.rules.adapters.cndi import CNDI_NO_MANIFESTS
from shardwise.rules.adapters.load import load_file, load_text
from shardwise.rules.model import UNKNOWN

RULES = FIXTURES / "rules" / "SW101"


def served(inv):
    return [(g.kind, g.namespace, g.name, g.location.line,
             "UNKNOWN" if g.engine.model is UNKNOWN else g.engine.model, g.gpus_per_pod) for g in inv.groups]


def test_a_cndi_config_reads_its_cluster_manifests_and_not_its_block_references():
    inv = load_file(str(RULES / "cndi-config.yaml"))
    assert inv.errors == [] and inv.skipped_files == []
    assert served(inv) == [("Deployment", "vllm", "model-deployment", 36, "Qwen/Qwen2.5-32B-Instruct", 1),
                           ("Deployment", "vllm", "small-model", 64, "meta-llama/Llama-3.2-1B-Instruct", 1)]


def test_a_cndi_template_reads_its_outputs_with_the_prompted_model_not_known():
    inv = load_file(str(RULES / "cndi-template.yaml"))
    assert inv.errors == [] and inv.skipped_files == []
    assert served(inv) == [("Deployment", "vllm", "model-deployment", 17, "UNKNOWN", 1)]


def test_a_cndi_config_with_only_block_references_says_why_it_reads_nothing():
    text = ("cndi_version: v3\nproject_name: p\ncluster_manifests:\n  quota:\n"
            "    $cndi.get_block(gcp-resource-quota):\n      condition: [a, ==, b]\n"
            "applications:\n  vllm:\n    repoURL: https://example.com/charts\n    chart: vllm\n")
    inv = load_text(text, "cndi_config.yaml")
    assert inv.groups == [] and inv.errors == []
    assert inv.skipped_files == [("cndi_config.yaml", CNDI_NO_MANIFESTS)]


def test_other_yaml_with_a_cluster_manifests_key_is_not_read_as_cndi():
    # a mapping named cluster_manifests in a file with none of cndi_config.yaml's keys is some other tool's
    text = ("cluster_manifests:\n  app:\n    apiVersion: apps/v1\n    kind: Deployment\n"
            "    metadata: {name: x}\n")
    inv = load_text(text, "settings.yaml")
    assert inv.groups == [] and inv.skipped_files == [("settings.yaml", "YAML that is not a Kubernetes object")]


def test_an_entry_of_cluster_manifests_that_is_no_object_is_an_input_error_at_its_line():
    text = "cndi_version: v3\ncluster_manifests:\n  broken:\n    metadata: {name: x}\n"
    inv = load_text(text, "cndi_config.yaml")
    assert [(e.line, e.message) for e in inv.errors] == [(4, "object has no apiVersion")]


def test_a_cndi_config_with_a_key_written_twice_is_an_input_error_not_read():
    """CNDI parses its configuration strictly (Deno's std/yaml refuses a duplicated mapping key): the file is an input
    error at the second key, as any YAML with a duplicate key, and its manifests are not read with the last value (the
    robustness fuzz found cndi-config.yaml with `cndi_version` twice linted as a manifest, exit 1)."""
    text = ("cndi_version: v3\ncndi_version: v3\nproject_name: p\ncluster_manifests:\n  vllm:\n"
            "    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: vllm}\n")
    inv = load_text(text, "cndi_config.yaml")
    assert inv.groups == []
    assert [(e.line, e.message.split(": ")[1]) for e in inv.errors] == [
        (2, "duplicate key 'cndi_version' (first written on line 1)")]

"""docs/components.md is made from the Args dataclasses and the specs, documents every field, and is
current (regenerate with ``python -m shardwise.components._docs > docs/components.md``)."""

from __future__ import annotations

import dataclasses

from repo_paths import ROOT
from shardwise.components import _docs


def test_components_doc_is_current():
    assert (ROOT / "docs" / "components.md").read_text(encoding="utf-8") == _docs.render(), (
        "docs/components.md is stale: python -m shardwise.components._docs > docs/components.md")


def test_every_field_has_a_row_with_a_meaning():
    text = _docs.render()
    for _, args_cls, spec_cls, _ in _docs.COMPONENTS:
        rows = _docs.args_table(args_cls, spec_cls)[2:]
        assert [r.split(" | ")[0].strip("| `") for r in rows] == [f.name for f in dataclasses.fields(args_cls)]
        assert all(r.split(" | ")[-1].strip(" |") for r in rows), args_cls.__name__
    for model in _docs.MODELS:
        rows = _docs.model_table(model)[6:]
        assert [r.split(" | ")[0].strip("| `") for r in rows] == list(model.model_fields)
        assert all(r.split(" | ")[-1].strip(" |") for r in rows), model.__name__
        assert f"### `{model.__name__}`" in text


def test_the_doc_names_what_is_verified_and_what_is_not():
    text = _docs.render()
    assert "is superseded. Verified against the guide's text only — not launched on hardware here." in text
    assert "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html" in text
    # the stand-ins that remain and what is not looked up
    assert "The AWS provider (`pulumi-resource-aws`) cannot be built or downloaded here" in text
    assert "Whether the cluster really runs what it declares is not\nlooked up" in text
    # every prerequisite is a row of the per-mode table
    from shardwise.rules.render.environment import PREREQUISITES

    table = text.split("### Prerequisites per mode", 1)[1].split("\n\n", 2)[1].splitlines()
    assert [r.split(" | ")[0].strip("| `") for r in table[2:]] == [*PREREQUISITES, "PriorityClasses"]
    assert "nvidia-device-plugin 0.17.1, aws-efa-k8s-device-plugin 0.5.10, lws 0.7.0, keda 2.18.3" in text

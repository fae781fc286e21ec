"""SW103 in the note of a workload not known at preview (mend2): where its load is declared.

A Deployment whose container list is a computed value at preview gives no serving group, and one advisory note names
the rules it holds back (checks._unseen.held_back_hits, merged by engine.merge_undecided). SW103 weighs a declared load
(annotation shardwise.dev/target-concurrency, which the components write on the Deployment's metadata from the stack's
``target_concurrency``: render.workload.workload_annotations) against the replica's KV cache: where the workload declares
one, or its annotations are not known either, the note names SW103 too; where it is known to declare none, SW103 has
nothing to weigh and is not named (as before).
"""

from __future__ import annotations

import copy
import re

import pytest
from pulumi_preview import U, lint_document, stack_preview

DEP = 8  # the Deployment step of stack_preview()


def _note_codes(findings: list[dict]) -> list[str]:
    notes = [f for f in findings if f["undecided"] and "its container list" in f["message"]
             and f["level"] == "advisory" and "this holds back" in f["message"]]
    assert len(notes) == 1, findings
    m = re.search(r"this holds back (.*), which are checked", notes[0]["message"])
    assert m is not None, notes[0]
    return re.findall(r"(SW\d{3})(?: \(whether [^)]*\))?(?:, |$)", m.group(1))


def _preview(metadata_annotations: object, template_annotations: object = None) -> dict:
    doc = copy.deepcopy(stack_preview())
    inputs = doc["steps"][DEP]["newState"]["inputs"]
    if metadata_annotations is not None:
        inputs["metadata"]["annotations"] = metadata_annotations
    if template_annotations is not None:
        inputs["spec"]["template"]["metadata"]["annotations"] = template_annotations
    inputs["spec"]["template"]["spec"]["containers"] = U
    return doc


@pytest.mark.parametrize("meta, template, named", [
    ({"shardwise.dev/target-concurrency": "64", "shardwise.dev/p95-context-tokens": "4096"}, None, True),
    (None, {"shardwise.dev/target-concurrency": "64"}, True),  # on the pod template: read there too
    (U, None, True),  # annotations not known: a load may be declared, never read as none
    ({"team": "ml"}, None, False),  # known to declare none: nothing for SW103 to weigh
    (None, None, False),
])
def test_sw103_is_held_back_where_the_workload_declares_a_load(tmp_path, meta, template, named):
    code, errors, findings = lint_document(tmp_path, _preview(meta, template))
    assert errors == ""
    codes = _note_codes(findings)
    assert ("SW103" in codes) is named, codes
    assert {"SW101", "SW102", "SW104"} <= set(codes)  # the rest of the note as before

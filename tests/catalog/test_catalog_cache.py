"""The catalog's indexes kept between runs (catalog/lookup.py, ``catalog-index.*.marshal``): the records made
from the cache are those made from the JSON, in the same order, and a cache that no longer matches the data
(another size or modification time, another Python release, a damaged file) is not used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

_PROBE = textwrap.dedent("""
    import json, sys
    from shardwise.rules.catalog import lookup
    lookup._INDEX_CACHE = sys.argv[1]
    used = lookup._cached_indexes() is not None  # read once per process
    gpus, keys, family = lookup._gpu_index()
    models, lower, bare = lookup._model_index()
    instances = lookup._instance_index()
    print(json.dumps({"used": used, "written": lookup._built != {},
                      "gpus": [repr(g) for g in gpus.values()], "keys": list(keys.items()), "family": family,
                      "models": [repr(m) for m in models.values()], "lower": list(lower.items()),
                      "bare": list(bare.items()), "instances": [repr(i) for i in instances.values()]}))
""")


def _probe(cache, write=True):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    flags = [] if write else ["-B"]
    proc = subprocess.run([sys.executable, *flags, "-c", _PROBE, str(cache)], capture_output=True, text=True,
                          check=True, env=env)
    return json.loads(proc.stdout)


def test_records_from_the_cache_are_the_records_from_the_json(tmp_path):
    cache = tmp_path / "catalog-index.marshal"
    fresh = _probe(cache, write=False)
    assert fresh["used"] is False and not cache.exists()
    built = _probe(cache)
    assert built["used"] is False and cache.exists()
    cached = _probe(cache)
    assert cached["used"] is True and cached["written"] is False
    for key in ("gpus", "keys", "family", "models", "lower", "bare", "instances"):
        assert cached[key] == built[key] == fresh[key], key
    assert len(cached["models"]) > 100 and len(cached["gpus"]) > 20 and len(cached["instances"]) > 40


def test_a_cache_that_no_longer_matches_is_not_used(tmp_path):
    import marshal

    cache = tmp_path / "catalog-index.marshal"
    _probe(cache)
    stamp, content = marshal.loads(cache.read_bytes())
    cache.write_bytes(marshal.dumps(((stamp[0] - 1, *stamp[1:]), content)))  # another Python release
    assert _probe(cache, write=False)["used"] is False
    older = (stamp[0], (stamp[1][0], stamp[1][1] - 1), *stamp[2:])  # gpus.json changed since
    cache.write_bytes(marshal.dumps((older, content)))
    assert _probe(cache, write=False)["used"] is False
    cache.write_bytes(b"\x00damaged")
    out = _probe(cache, write=False)
    assert out["used"] is False and len(out["models"]) > 100


# --- the accelerator table (catalog/accelerators.py, ``accelerators-table.*.marshal``) ---------------------------

_ACC_PROBE = textwrap.dedent("""
    import sys
    from shardwise.rules.catalog import accelerators as a
    a._DATA_CACHE = sys.argv[1]
    table, not_accelerators = a._table()
    parsed = "json" in sys.modules  # before this probe imports it to print
    import json
    print(json.dumps({"parsed": parsed, "table": [repr(x) for x in table], "not": list(not_accelerators)}))
""")


def _acc_probe(cache, write=True):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run([sys.executable, *([] if write else ["-B"]), "-c", _ACC_PROBE, str(cache)],
                          capture_output=True, text=True, check=True, env=env)
    return json.loads(proc.stdout)


def test_the_accelerator_table_from_its_cache_is_the_table_from_the_json(tmp_path):
    cache = tmp_path / "accelerators-table.marshal"
    fresh = _acc_probe(cache, write=False)
    assert fresh["parsed"] is True and not cache.exists()  # -B: nothing written
    built = _acc_probe(cache)
    assert built["parsed"] is True and cache.exists()
    cached = _acc_probe(cache)
    assert cached["parsed"] is False  # json not even imported
    assert cached["table"] == built["table"] == fresh["table"] and cached["not"] == built["not"] == fresh["not"]
    assert len(cached["table"]) > 5 and cached["table"][0].startswith("Accelerator(family='nvidia-gpu', vendor='nvidia'")


def test_an_accelerator_cache_that_no_longer_matches_is_not_used(tmp_path):
    import marshal

    cache = tmp_path / "accelerators-table.marshal"
    _acc_probe(cache)
    good = _acc_probe(cache)
    stamp, data = marshal.loads(cache.read_bytes())
    data["accelerators"] = data["accelerators"][:1]  # what an older file held
    for other in ((stamp[0] - 1, *stamp[1:]), (*stamp[:3], stamp[3] - 1), (stamp[0], "/elsewhere", *stamp[2:])):
        cache.write_bytes(marshal.dumps((other, data)))  # another release, an older mtime, another file
        out = _acc_probe(cache, write=False)
        assert out["parsed"] is True and out["table"] == good["table"]
    cache.write_bytes(b"\x00damaged")
    out = _acc_probe(cache, write=False)
    assert out["parsed"] is True and out["table"] == good["table"]

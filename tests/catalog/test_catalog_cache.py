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

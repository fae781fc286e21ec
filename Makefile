# One command each: setup, dist, demo, test, lint, typecheck, docs, bench.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup mypyc dist demo test test-fast test-engine test-cluster engine cluster tools lint typecheck docs docs-check bench bench-engine clean

$(BIN)/shardwise: pyproject.toml setup.py
	@$(PY) -m venv $(VENV)
	@$(BIN)/pip install --quiet --disable-pip-version-check --upgrade pip
	@# SHARDWISE_NATIVE=0: setup.py adds no extension to the editable install; build-native.sh builds it
	@# pip and setuptools print screens of build output: it goes to .venv/setup.log, shown when it fails
	@echo "setup: installing shardwise and its dependencies into $(VENV) (about a minute and a half the first time) ..."
	@SHARDWISE_NATIVE=0 $(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]' >$(VENV)/setup.log 2>&1 \
		|| { tail -n 40 $(VENV)/setup.log; echo "setup: pip install failed (all of it in $(VENV)/setup.log)"; exit 1; }
	@touch $@

# the optional compiled YAML reader (native/, Rust); without cargo setup goes on with the Python reader
setup: $(BIN)/shardwise
	@bash scripts/build-native.sh $(BIN)/python
	@# the hottest rules modules compiled with mypyc (scripts/build-mypyc.sh; mypy, a dev dependency, ships it):
	@# about 16 % fewer instructions of a lint of the generated manifests, the same reports (benchmarks/README.md,
	@# "Compiled with mypyc"). Two to four minutes the first time and after a source of rules/ changed, nothing
	@# when current; without mypyc or a C compiler it says so and the sources are used. SHARDWISE_MYPYC=0 make
	@# setup builds none (and removes a build); a source edited since the build retires it until the next setup
	@bash scripts/build-mypyc.sh $(BIN)/python
	@# bytecode, as pip writes it when it installs a wheel: an editable install writes none, and with
	@# PYTHONDONTWRITEBYTECODE set every start compiles each changed module again (0.17 s of a one-file lint
	@# after a pull); compileall rewrites only what is out of date, so every setup brings it up to date
	@$(BIN)/python -m compileall -q rules components shardwise
	@# the rules modules' bytecode in one file (rules/_module_code.py): a one-file lint found, statted, opened and
	@# read about 110 .pyc files one by one through the import system's finders (about 12M instructions)
	@$(BIN)/python -c "from shardwise.rules._module_code import main; main()"
	@# the methods @dataclass writes for the rules' classes, kept finished per module (rules/_dataclass_code.py):
	@# a one-file lint wrote and compiled (later exec'd) about ninety classes' methods on every start
	@$(BIN)/python -c "from shardwise.rules._dataclass_code import main; main()"
	@# the regular expressions the rules' modules compile at import (rules/_regex_code.py): about 8 ms of
	@# CPU of every one-file lint
	@$(BIN)/python -c "from shardwise.rules._regex_code import main; main()"
	@# the catalog's indexes as the records are made from them (catalog/lookup.py) and the accelerator table
	@# (catalog/accelerators.py): a one-file lint read and checked the JSON files at every start; written when
	@# bytecode writing is on, so it is turned on here
	@PYTHONDONTWRITEBYTECODE= $(BIN)/python -c "from shardwise.rules.catalog import accelerators, lookup; accelerators._table(); lookup._model_index(); lookup._instance_index()"
	@# a first lint (of the example), with bytecode writing on: the patterns a lint compiles in functions (the
	@# accelerator table's image markers, the release and name patterns; about 20) go into the regular-expression
	@# store at its exit. Where bytecode writing is off (PYTHONDONTWRITEBYTECODE, as CI and containers set it) no
	@# later run adds them, and every one-file lint compiled them again: 14M of its instructions
	@PYTHONDONTWRITEBYTECODE= $(BIN)/shardwise lint examples/llama-3.1-70b-tp4.yaml > /dev/null

# the compiled modules alone (setup builds them too): SHARDWISE_MYPYC=0 make mypyc removes them,
# SHARDWISE_MYPYC=0 in a lint's environment leaves them unused
mypyc: setup
	@bash scripts/build-mypyc.sh $(BIN)/python
	@$(BIN)/python -c "from shardwise.rules._module_code import main; main()"

# dist/: the sdist, the Linux wheel with the compiled YAML reader (abi3, manylinux) and the pure-Python
# wheel (scripts/build-dist.sh; needs cargo)
dist: setup
	@bash scripts/build-dist.sh $(BIN)/python

# Set up, then lint the example stacks and manifests and size a model.
demo: setup
	$(BIN)/shardwise lint stacks/ examples/ --fail-on mandatory
	$(BIN)/shardwise plan --model meta-llama/Llama-3.1-70B-Instruct --gpu H100 --max-model-len 8192 --concurrency 64

test: setup
	$(BIN)/ruff check .
	$(BIN)/mypy rules components __main__.py tests benchmarks
	$(BIN)/shardwise docs --check
	$(BIN)/shardwise docs --readme README.md --check
	$(BIN)/pytest -q

# The edit loop: the tests that start no process, build nothing, fuzz nothing and sweep no full matrix (those are
# marked slow and run in `make test`), stopping at the first failure. Byte code is written even where
# PYTHONDONTWRITEBYTECODE is set: without it every run compiles and assert-rewrites every module again.
test-fast: setup
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -q -x -m "not slow and not engine and not tools and not cluster"

# The real Pulumi CLI, Python language host and Kubernetes provider from their Go modules (cached
# under ~/.cache/shardwise-pulumi), then the tests that run them; `make test` skips those when they
# are not built.
engine:
	bash scripts/build-pulumi.sh
	bash scripts/build-k8s-provider.sh

# helm, kustomize, actionlint (tests) and kube-linter (benchmark) from their Go modules (~/.cache/shardwise-tools)
tools:
	bash scripts/build-tools.sh

# kube-apiserver, kube-controller-manager, kube-scheduler, etcd and kwok from their Go modules, and the
# CRDs the stacks need (~/.cache/shardwise-cluster; about 25 minutes the first time on 2 cores)
cluster:
	bash scripts/build-cluster.sh

# `pulumi up` of every stack's Kubernetes layer against that control plane (tests/e2e/test_cluster.py)
test-cluster: setup engine cluster
	SHARDWISE_REQUIRE_ENGINE=1 SHARDWISE_REQUIRE_CLUSTER=1 $(BIN)/pytest -q -m cluster

test-engine: setup engine
	SHARDWISE_REQUIRE_ENGINE=1 $(BIN)/pytest -q -m engine

lint: setup
	$(BIN)/ruff check .

typecheck: setup
	$(BIN)/mypy rules components

docs: setup
	$(BIN)/shardwise docs
	$(BIN)/shardwise docs --readme README.md
	$(BIN)/python -m shardwise.components._docs > docs/components.md

# what `make docs` would change, without changing it: the rule pages, the README's rule list and
# docs/components.md (it was listed as a target but had no recipe, so it checked nothing)
docs-check: setup
	$(BIN)/shardwise docs --check
	$(BIN)/shardwise docs --readme README.md --check
	@$(BIN)/python -m shardwise.components._docs | diff -u docs/components.md - \
		|| { echo "docs-check: docs/components.md is out of date: run make docs"; exit 1; }

bench: setup
	$(BIN)/python benchmarks/bench_lint.py
	$(BIN)/python benchmarks/bench_pack.py
	$(BIN)/python benchmarks/bench_corpus.py
	$(BIN)/python benchmarks/bench_corpus.py --wide

bench-engine: setup engine
	$(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) build dist *.egg-info native/target rules/_yamlfast.abi3.so rules/_mc_sources.marshal
	find rules -name '*.cpython-*.so' -delete

# Gacha TriadAlpha backend: the front door. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PROTOS := $(wildcard proto/triad/v1/*.proto)
GEN_STAMP := gen/.generated

.PHONY: help venv proto run test unit lint fmt bench load clean ops-tools test-tools chaos

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

venv: $(STAMP) ## create .venv and install the pinned dependencies

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@# Generated protobuf code lives in gen/ (never committed); put it on the venv's path.
	@echo "$(CURDIR)/gen" > "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/triad-generated.pth"
	@touch $@

proto: $(GEN_STAMP) ## generate Python code from proto/triad/v1 into gen/

$(GEN_STAMP): $(STAMP) $(PROTOS)
	@rm -rf gen && mkdir -p gen
	$(BIN)/python -m grpc_tools.protoc -I proto \
		--plugin=protoc-gen-mypy=$(BIN)/protoc-gen-mypy \
		--plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc \
		--python_out=gen --grpc_python_out=gen \
		--mypy_out=gen --mypy_grpc_out=gen $(PROTOS)
	@touch gen/triad/__init__.py gen/triad/v1/__init__.py gen/triad/py.typed $@

run: proto ## start the whole backend on this machine
	$(BIN)/python -m devtools.run

test: proto lint test-tools ## run every test (unit, integration, conformance)
	$(BIN)/python -m pytest -q

# Unit and handler tests: no server. devtools/testing.py marks every test that asks for
# PostgreSQL or NATS `integration`, so none of them is selected here.
unit: proto ## run the unit and handler tests (no server; under a minute)
	$(BIN)/python -m pytest -q -n auto -m "not integration" services gateway client devtools bench tests/test_contract.py

lint: proto ## ruff (lint and format check) and mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

fmt: $(STAMP) ## format the code and apply safe lint fixes
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

chaos: proto ## chaos under load: services killed, NATS and PostgreSQL away, then the invariants (~7 min)
	TRIAD_CHAOS=1 $(BIN)/python -m pytest -q -s -p no:cacheprovider tests/chaos

bench: proto ## run the benchmarks; JSON reports land in bench/results/
	$(BIN)/python -m bench

LOAD_CLIENTS ?= 16
LOAD_SECONDS ?= 60
LOAD_MIX     ?= ranked=2,unranked=1,practice=1
load: proto ## end-to-end load: LOAD_CLIENTS players for LOAD_SECONDS through the gateway (JSON + PNG)
	$(BIN)/python -m bench.load --clients $(LOAD_CLIENTS) --seconds $(LOAD_SECONDS) --mix $(LOAD_MIX)

ops-tools: ## install promtool and kubectl for the deployment checks (as root)
	.ci/install-ops-tools

# make test sets up what its tests need: the deployment checks' tools too, where it can
# (as root, as CI is). Where it cannot, those checks are skipped, each naming
# `make ops-tools` as the command that enables them; they never fail for a missing tool.
test-tools:
	@if [ "$$(id -u)" = 0 ]; then \
		.ci/install-ops-tools || echo "make test: promtool/kubectl could not be installed; the deployment checks that need them are skipped"; \
	else \
		echo "make test: not root, so promtool/kubectl are not installed here; the deployment checks that need them are skipped (run 'sudo make ops-tools' to enable them)"; \
	fi

clean: ## remove the virtual environment and generated code
	rm -rf $(VENV) gen .pytest_cache .mypy_cache .ruff_cache

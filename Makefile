# Gacha TriadAlpha backend: the front door. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PROTOS := $(wildcard proto/triad/v1/*.proto)
GEN_STAMP := gen/.generated

# Keep compiled bytecode (__pycache__/, ignored by git) even where the environment asks
# Python not to write it: otherwise every pytest worker and every service process the
# tests start compiles the project and rewrites every test's asserts again (here, the
# unit tests' collection took 9.5 s per worker without the cache and 4.3 s with it).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help venv proto web web-maybe browser-tools run test unit lint fmt bench load clean ops-tools test-tools chaos

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-9s %s\n", $$1, $$2}'

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

# The browser client (web/): npm packages from package-lock.json, TypeScript generated
# from proto/ (buf + protoc-gen-es), type-checked, bundled by esbuild into web/dist,
# which the gateway's web port serves. Nothing but the npm registry is used.
WEB_SOURCES := $(wildcard web/src/*.ts web/static/* web/*.json web/*.mjs web/buf.gen.yaml) $(PROTOS)
WEB_STAMP := web/dist/app.js
WEB_MODULES := web/node_modules/.package-lock.json

web: $(WEB_STAMP) ## build the browser client into web/dist (npm ci, codegen, esbuild)

$(WEB_MODULES): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error

$(WEB_STAMP): $(WEB_SOURCES) $(WEB_MODULES)
	cd web && rm -rf src/gen && npx buf generate ../proto --template buf.gen.yaml
	cd web && npx tsc --noEmit -p .
	cd web && node build.mjs

# make run and make test build the client where npm is installed, and say so where not.
web-maybe:
	@if command -v npm >/dev/null; then \
		$(MAKE) -s --no-print-directory web || echo "make: the browser client did not build (see above); the gateway's web port still serves gRPC-Web"; \
	else \
		echo "make: npm is not installed, so the browser client is not built (apt-get install npm, then make web)"; \
	fi

# Debian's Chromium for the browser test (tests/e2e/test_browser.py), as root; where it
# cannot be installed that test is skipped, saying so.
browser-tools:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
			|| echo "make test: chromium could not be installed; the browser test is skipped"; \
	else \
		echo "make test: not root, so chromium is not installed; the browser test is skipped (sudo apt-get install chromium)"; \
	fi

run: proto web-maybe ## start the whole backend on this machine (and the browser client)
	$(BIN)/python -m devtools.run

# Three pytest workers, each with its own PostgreSQL, NATS and backends; a test module
# stays on one worker (--dist loadfile), so its backend starts once. The longest modules
# go first (devtools/testing.py): xdist's own order, most tests first, left the browser
# files (few tests of 10-20 s each) to the end. Three on 2 cores: the end-to-end tests
# spend much of their time waiting on timers and other processes (two workers kept the
# cores 58 % busy). Serial: TEST_WORKERS=0.
TEST_WORKERS ?= 3
test: proto lint test-tools ## ruff and mypy, then every test but chaos (make chaos): unit, integration, end-to-end, conformance, deployment; first builds the browser client (with npm) and, as root, installs chromium, promtool, kubectl
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# Unit and handler tests: no server. devtools/testing.py marks every test that asks for
# PostgreSQL or NATS `integration`, so none of them is selected here.
# One worker more than cores: some of these tests wait on a terminal or a client process
# rather than compute (here, on 2 cores: 69 s on average against 80 s with 2 workers).
UNIT_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
unit: proto ## run the unit and handler tests (no server; about a minute)
	$(BIN)/python -m pytest -q -n $(UNIT_WORKERS) -m "not integration" services gateway client devtools bench tests/test_contract.py tests/test_house.py

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
test-tools: web-maybe browser-tools
	@if [ "$$(id -u)" = 0 ]; then \
		.ci/install-ops-tools || echo "make test: promtool/kubectl could not be installed; the deployment checks that need them are skipped"; \
	else \
		echo "make test: not root, so promtool/kubectl are not installed here; the deployment checks that need them are skipped (run 'sudo make ops-tools' to enable them)"; \
	fi

clean: ## remove the virtual environment, generated code and the built browser client
	rm -rf $(VENV) gen .pytest_cache .mypy_cache .ruff_cache web/node_modules web/src/gen web/dist

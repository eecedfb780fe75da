# rics: the two set-up commands are `make run` and `make test`.

CARGO ?= cargo
BIND ?= 127.0.0.1:8080
# schemathesis cases per operation and phase: `make fuzz-api` (CI) and `make fuzz-api-full`.
FUZZ_EXAMPLES ?= 5
FUZZ_FULL_EXAMPLES ?= 80

.PHONY: run install build test pglast-venv mrz-referee jsonata-referee standardwebhooks-referee moto-referee openapi-client-referee fuzz-venv fuzz-api fuzz-api-full test-sqlite lint fmt deps-check bench bench-load eval-screening migrate clean-test-postgres screenshots help

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

run: ## Build and serve on SQLite at ./data/rics.db, 127.0.0.1:8080
	@[ -x target/release/rics ] || echo "make run: the first release build compiles about 460 crates: about 8 minutes on 2 idle cores, more on a busy machine (cargo shows its progress bar on a terminal); later builds take seconds"
	$(CARGO) build --release -p rics
	RICS_BIND_ADDRESS=$${RICS_BIND_ADDRESS:-$(BIND)} ./target/release/rics serve

install: ## Put the release binary on PATH as rics (cargo install into ~/.cargo/bin, building in target/)
	$(CARGO) install --locked --path crates/app --target-dir target

build: ## Build everything (debug)
	$(CARGO) build --workspace --all-targets

# PostgreSQL is a throwaway cluster that logs every statement; after the suite,
# scripts/tenant-statements.sh fails on any statement of a distributed table without a
# tenant_id predicate (docs/architecture.md, "Distributing the tables with Citus").
test: mrz-referee jsonata-referee standardwebhooks-referee moto-referee openapi-client-referee pglast-venv ## Run every test on SQLite and PostgreSQL (starts PostgreSQL), then the tenant_id statement check
	@url="$$(scripts/test-postgres.sh --statement-log)" || exit 1; \
	echo "make test: PostgreSQL at $$url"; \
	status=0; RICS_TEST_DATABASE_URL="$$url" $(CARGO) test --workspace --no-fail-fast || status=$$?; \
	scripts/tenant-statements.sh "$$url" || status=1; \
	exit $$status

test-long: ## The long tests, beyond CI: crash tests with SIGKILL against the built binary on PostgreSQL (executions, webhooks, onboardings), two replicas behind haproxy
	scripts/crash-executions.sh
	scripts/crash-webhooks.sh
	scripts/crash-onboarding.sh
	scripts/bench-replicas.sh

# The referees and the fuzzer run in Python virtual environments under target/, made once
# from PyPI. This checks for what they need and says what is missing; $(1) names the target.
define need_python
if ! command -v python3 >/dev/null 2>&1; then \
  echo "make $(1): needs python3 (with venv) for the test referees, and PyPI once: install Python 3 (Debian/Ubuntu: apt-get install python3 python3-venv)" >&2; exit 1; fi; \
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then \
  echo "make $(1): python3 has no venv/ensurepip module: install it (Debian/Ubuntu: apt-get install python3-venv)" >&2; exit 1; fi
endef

# Installs $(3) in the venv $(2) for target $(1), saying when PyPI cannot be reached.
define install_venv
$(call need_python,$(1)); \
echo "make $(1): installing $(3) in $(2) (from PyPI, once)"; \
python3 -m venv $(2) && \
if ! $(2)/bin/pip install --quiet --disable-pip-version-check $(3); then \
  echo "make $(1): could not install $(3) from PyPI: the test referees need the package index once (or a mirror in PIP_INDEX_URL)" >&2; exit 1; fi
endef

PGLAST_VENV := target/pglast-venv
PGLAST_VERSION := 8.8

pglast-venv: ## Python venv with pglast 8.8 (PostgreSQL's own parser), for the tenant_id statement check (once)
	@if ! $(PGLAST_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("pglast") != "$(PGLAST_VERSION)")' 2>/dev/null; then \
	  $(call install_venv,pglast-venv,$(PGLAST_VENV),pglast==$(PGLAST_VERSION)); fi

MRZ_VENV := target/mrz-venv

mrz-referee: ## Python venv with the mrz package 0.6.2, the referee of the MRZ tests (once)
	@if ! $(MRZ_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("mrz") != "0.6.2")' 2>/dev/null; then \
	  $(call install_venv,mrz-referee,$(MRZ_VENV),mrz==0.6.2); fi

JSONATA_REFEREE := target/jsonata-referee
JSONATA_VERSION := 2.2.2

jsonata-referee: ## npm jsonata 2.2.2 under target/jsonata-referee, run by node as the referee of the JSONata corpus (once)
	@if [ "$$(node -p 'require("./$(JSONATA_REFEREE)/node_modules/jsonata/package.json").version' 2>/dev/null)" != "$(JSONATA_VERSION)" ]; then \
	  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
	    echo "make jsonata-referee: needs node and npm (Debian/Ubuntu: apt-get install nodejs npm)" >&2; exit 1; fi; \
	  echo "make jsonata-referee: installing jsonata@$(JSONATA_VERSION) in $(JSONATA_REFEREE) (from npm, once)"; \
	  mkdir -p $(JSONATA_REFEREE) && \
	  if ! npm install --silent --no-audit --no-fund --prefix $(JSONATA_REFEREE) jsonata@$(JSONATA_VERSION); then \
	    echo "make jsonata-referee: could not install jsonata@$(JSONATA_VERSION) from npm: the referee needs the registry once" >&2; exit 1; fi; fi

STANDARDWEBHOOKS_VENV := target/standardwebhooks-venv

standardwebhooks-referee: ## Python venv with standardwebhooks 1.1.0, the referee of the webhook signature tests (once)
	@if ! $(STANDARDWEBHOOKS_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("standardwebhooks") != "1.1.0")' 2>/dev/null; then \
	  $(call install_venv,standardwebhooks-referee,$(STANDARDWEBHOOKS_VENV),standardwebhooks==1.1.0); fi

MOTO_VENV := target/moto-venv
MOTO_VERSION := 5.1.18

moto-referee: ## Python venv with moto 5.1.18 (S3 only, in server mode), the S3 server of the file store tests (once)
	@if ! $(MOTO_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("moto") != "$(MOTO_VERSION)")' 2>/dev/null; then \
	  $(call install_venv,moto-referee,$(MOTO_VENV),moto[s3]==$(MOTO_VERSION) flask flask-cors); fi

CLIENT_VENV := target/openapi-client-venv
CLIENT_GENERATOR_VERSION := 0.29.1

openapi-client-referee: ## Python venv with openapi-python-client 0.29.1, for the generated-client test (once)
	@if ! $(CLIENT_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("openapi-python-client") != "$(CLIENT_GENERATOR_VERSION)")' 2>/dev/null; then \
	  $(call install_venv,openapi-client-referee,$(CLIENT_VENV),openapi-python-client==$(CLIENT_GENERATOR_VERSION)); fi

FUZZ_VENV := target/fuzz-venv
SCHEMATHESIS_VERSION := 4.32.5

fuzz-venv: ## Python venv with schemathesis 4.32.5, the API fuzzer (once)
	@if ! $(FUZZ_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("schemathesis") != "$(SCHEMATHESIS_VERSION)")' 2>/dev/null; then \
	  $(call install_venv,fuzz-venv,$(FUZZ_VENV),schemathesis==$(SCHEMATHESIS_VERSION)); fi

# Both targets fuzz the debug build: `cargo test --no-run` builds what `make test` builds,
# target/debug/rics among it, so right after `make test` it has nothing to do.
fuzz-api: fuzz-venv ## Fuzz the OpenAPI document with schemathesis on SQLite and PostgreSQL at once (CI)
	$(CARGO) test --workspace --no-run --quiet
	$(FUZZ_VENV)/bin/python scripts/fuzz-api.py --max-examples $(FUZZ_EXAMPLES)

fuzz-api-full: fuzz-venv ## The same with at least 10,000 cases per backend
	$(CARGO) test --workspace --no-run --quiet
	$(FUZZ_VENV)/bin/python scripts/fuzz-api.py --max-examples $(FUZZ_FULL_EXAMPLES) --min-cases 10000

screenshots: ## Screenshots of each page of the hosted form, and of an onboarding's, into docs/screenshots (needs Debian's chromium and chromium-driver)
	@command -v chromedriver >/dev/null 2>&1 && { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; } || { \
	  echo "make screenshots: needs chromium and chromedriver (Debian/Ubuntu: apt-get install chromium chromium-driver)" >&2; exit 1; }
	RICS_SCREENSHOTS_DIR="$(CURDIR)/docs/screenshots" $(CARGO) test -p rics-e2e --test api hosted_browser -- --exact hosted_browser::a_browser_fills_every_step_and_submits hosted_browser::a_browser_onboards_a_person_to_a_signed_decision

lint: fmt deps-check ## Formatting, clippy with warnings as errors, dependency rules
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt: ## Check formatting
	$(CARGO) fmt --all -- --check

deps-check: ## Check the layering rules of docs/architecture.md
	$(CARGO) test -p rics --test cli architecture::

bench: ## Criterion benches, then the HTTP load benchmark on both backends
	$(CARGO) bench -p rics-aip
	$(CARGO) bench -p rics-screening --bench screening
	scripts/bench-load.sh

bench-load: ## Only the HTTP load benchmark (GET and filtered list over 100k entities)
	scripts/bench-load.sh

eval-screening: ## Screening quality on the labelled sets (release build)
	$(CARGO) run --release -p rics-screening --example eval

migrate: ## Apply pending migrations to RICS_DATABASE_URL (default ./data/rics.db)
	$(CARGO) run --release -p rics -- migrate

clean-test-postgres: ## Stop and remove the throwaway test clusters, if any were made
	@for dir in target/test-postgres "$$(dirname "$$(dirname "$$(scripts/test-postgres.sh --statement-log-file)")")"; do \
	  if [ -f $$dir/data/PG_VERSION ]; then \
	  bin="$$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"; \
	  if [ "$$(id -u)" = 0 ]; then runuser -u postgres -- "$$bin/pg_ctl" -D $$dir/data stop -m fast || true; \
	  else "$$bin/pg_ctl" -D $$dir/data stop -m fast || true; fi; \
	  rm -rf $$dir; fi; done

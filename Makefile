# rics: the two set-up commands are `make run` and `make test`.

CARGO ?= cargo
BIND ?= 127.0.0.1:8080
# schemathesis cases per operation and phase: `make fuzz-api` (CI) and `make fuzz-api-full`.
FUZZ_EXAMPLES ?= 5
FUZZ_FULL_EXAMPLES ?= 80

.PHONY: run build test mrz-referee openapi-client-referee fuzz-venv fuzz-api fuzz-api-full test-sqlite lint fmt deps-check bench bench-load eval-screening migrate clean-test-postgres help

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

run: ## Build and serve on SQLite at ./data/rics.db, 127.0.0.1:8080
	$(CARGO) build --release -p rics
	RICS_BIND_ADDRESS=$${RICS_BIND_ADDRESS:-$(BIND)} ./target/release/rics serve

build: ## Build everything (debug)
	$(CARGO) build --workspace --all-targets

test: mrz-referee openapi-client-referee ## Run every test on SQLite and PostgreSQL (finds or starts PostgreSQL)
	@url="$$(scripts/test-postgres.sh)" || exit 1; \
	echo "make test: PostgreSQL at $$url"; \
	RICS_TEST_DATABASE_URL="$$url" $(CARGO) test --workspace --no-fail-fast

MRZ_VENV := target/mrz-venv

mrz-referee: ## Python venv with the mrz package 0.6.2, the referee of the MRZ tests (once)
	@if ! $(MRZ_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("mrz") != "0.6.2")' 2>/dev/null; then \
	  echo "make mrz-referee: installing mrz 0.6.2 in $(MRZ_VENV)"; \
	  python3 -m venv $(MRZ_VENV) && \
	  $(MRZ_VENV)/bin/pip install --quiet --disable-pip-version-check mrz==0.6.2; fi

CLIENT_VENV := target/openapi-client-venv
CLIENT_GENERATOR_VERSION := 0.29.1

openapi-client-referee: ## Python venv with openapi-python-client 0.29.1, for the generated-client test (once)
	@if ! $(CLIENT_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("openapi-python-client") != "$(CLIENT_GENERATOR_VERSION)")' 2>/dev/null; then \
	  echo "make openapi-client-referee: installing openapi-python-client $(CLIENT_GENERATOR_VERSION) in $(CLIENT_VENV)"; \
	  python3 -m venv $(CLIENT_VENV) && \
	  $(CLIENT_VENV)/bin/pip install --quiet --disable-pip-version-check openapi-python-client==$(CLIENT_GENERATOR_VERSION); fi

FUZZ_VENV := target/fuzz-venv
SCHEMATHESIS_VERSION := 4.32.5

fuzz-venv: ## Python venv with schemathesis 4.32.5, the API fuzzer (once)
	@if ! $(FUZZ_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("schemathesis") != "$(SCHEMATHESIS_VERSION)")' 2>/dev/null; then \
	  echo "make fuzz-venv: installing schemathesis $(SCHEMATHESIS_VERSION) in $(FUZZ_VENV)"; \
	  python3 -m venv $(FUZZ_VENV) && \
	  $(FUZZ_VENV)/bin/pip install --quiet --disable-pip-version-check schemathesis==$(SCHEMATHESIS_VERSION); fi

# Both targets fuzz the debug build: `cargo test --no-run` builds what `make test` builds,
# target/debug/rics among it, so right after `make test` it has nothing to do.
fuzz-api: fuzz-venv ## Fuzz the OpenAPI document with schemathesis on SQLite and PostgreSQL at once (CI)
	$(CARGO) test --workspace --no-run --quiet
	$(FUZZ_VENV)/bin/python scripts/fuzz-api.py --max-examples $(FUZZ_EXAMPLES)

fuzz-api-full: fuzz-venv ## The same with at least 10,000 cases per backend
	$(CARGO) test --workspace --no-run --quiet
	$(FUZZ_VENV)/bin/python scripts/fuzz-api.py --max-examples $(FUZZ_FULL_EXAMPLES) --min-cases 10000

lint: fmt deps-check ## Formatting, clippy with warnings as errors, dependency rules
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt: ## Check formatting
	$(CARGO) fmt --all -- --check

deps-check: ## Check the layering rules of docs/architecture.md
	$(CARGO) test -p rics --test architecture

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

clean-test-postgres: ## Stop and remove the throwaway test cluster, if one was made
	@if [ -f target/test-postgres/data/PG_VERSION ]; then \
	  bin="$$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"; \
	  if [ "$$(id -u)" = 0 ]; then runuser -u postgres -- "$$bin/pg_ctl" -D target/test-postgres/data stop -m fast || true; \
	  else "$$bin/pg_ctl" -D target/test-postgres/data stop -m fast || true; fi; \
	  rm -rf target/test-postgres; fi

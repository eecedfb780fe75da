# rics: the two set-up commands are `make run` and `make test`.

CARGO ?= cargo
BIND ?= 127.0.0.1:8080

.PHONY: run build test mrz-referee test-sqlite lint fmt deps-check bench bench-load eval-screening migrate clean-test-postgres help

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

run: ## Build and serve on SQLite at ./data/rics.db, 127.0.0.1:8080
	$(CARGO) build --release -p rics
	RICS_BIND_ADDRESS=$${RICS_BIND_ADDRESS:-$(BIND)} ./target/release/rics serve

build: ## Build everything (debug)
	$(CARGO) build --workspace --all-targets

test: mrz-referee ## Run every test on SQLite and PostgreSQL (finds or starts PostgreSQL)
	@url="$$(scripts/test-postgres.sh)" || exit 1; \
	echo "make test: PostgreSQL at $$url"; \
	RICS_TEST_DATABASE_URL="$$url" $(CARGO) test --workspace --no-fail-fast

MRZ_VENV := target/mrz-venv

mrz-referee: ## Python venv with the mrz package 0.6.2, the referee of the MRZ tests (once)
	@if ! $(MRZ_VENV)/bin/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("mrz") != "0.6.2")' 2>/dev/null; then \
	  echo "make mrz-referee: installing mrz 0.6.2 in $(MRZ_VENV)"; \
	  python3 -m venv $(MRZ_VENV) && \
	  $(MRZ_VENV)/bin/pip install --quiet --disable-pip-version-check mrz==0.6.2; fi

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

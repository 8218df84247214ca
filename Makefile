# Tollgate: `make run` starts the server with a sample app, `make test` runs every test.
SWIFT ?= swift
PACKAGES := pkg-config libmicrohttpd-dev libsqlite3-dev libssl-dev libpq-dev postgresql nginx
PORT ?= 8080
HOST ?= 127.0.0.1

.PHONY: deps build run test bench demo format lint clean

deps:
	@bash scripts/ensure-packages.sh $(PACKAGES)

build: deps
	$(SWIFT) build -c release --product tollgate

run: build
	.build/release/tollgate serve --host $(HOST) --port $(PORT) --sample-config examples/sample-config.json

# The store suite runs against SQLite and a throw-away PostgreSQL cluster.
test: deps
	$(SWIFT) build --build-tests
	bash scripts/with-postgres.sh $(SWIFT) test --skip-build

# Figures go to BENCHMARKS.md (a few minutes; loopback only).
bench: deps
	@bash scripts/ensure-packages.sh wrk curl
	bash scripts/with-postgres.sh bash Benchmarks/scripts/bench.sh

demo: build
	.build/release/tollgate demo --config examples/sample-config.json

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

lint:
	$(SWIFT) format lint -r Sources Tests

clean:
	rm -rf .build

# Tollgate: `make run` starts the server with a sample app, `make test` runs every test.
SWIFT ?= swift
PACKAGES := pkg-config libmicrohttpd-dev libsqlite3-dev libssl-dev libsodium-dev libpq-dev postgresql nginx python3-venv libjs-chart.js node-qrcode-generator
# For the console test, the store tests through a transaction pooler, and the contract run's keys.
TEST_PACKAGES := chromium chromium-driver pgbouncer openssl
PORT ?= 8080
# A target that imports another it does not declare fails the build: the server's layers
# (docs/ARCHITECTURE.md) are kept by the compiler.
LAYERS := --explicit-target-dependency-import-check error
HOST ?= 127.0.0.1

# Linking the Swift runtime statically also links Foundation's libcurl (it stays shared).
PACKAGE_PACKAGES := libcurl4-openssl-dev binutils adduser curl procps

.PHONY: deps build run test contract package package-test apple-check apple-check-proof layers-proof walk bench bench-compare bench-scale demo cli-doc format lint clean

deps:
	@bash scripts/ensure-packages.sh $(PACKAGES)

build: deps
	$(SWIFT) build $(LAYERS) -c release --product tollgate

run: build
	.build/release/tollgate serve --host $(HOST) --port $(PORT) --sample-config examples/sample-config.json

# The Swift tests (the store suite against SQLite and a throw-away PostgreSQL cluster); then the
# API contract: schemathesis (pinned, in .build/contract-venv) fuzzes a live server against
# docs/openapi.yaml with every check; the console in headless Chromium (Selenium, pinned, in
# .build/dashboard-venv), with screenshots in .build/dashboard-screenshots/; the layers proof;
# the Apple-only glue check (apple-check); the Debian package, from a debug build (the same
# package as `make package`'s, unoptimised: scripts/package.sh says why), built from the start
# beside the rest and installed (as root). scripts/test.sh says in which order and why.
test: deps
	@bash scripts/ensure-packages.sh $(TEST_PACKAGES) $(PACKAGE_PACKAGES)
	SWIFT=$(SWIFT) LAYERS="$(LAYERS)" bash scripts/test.sh

# The Debian package: tollgate with the Swift runtime linked in, needing only Debian's libraries
# (.build/package/tollgate_VERSION_ARCH.deb).
package: deps
	@bash scripts/ensure-packages.sh $(PACKAGE_PACKAGES)
	SWIFT=$(SWIFT) bash scripts/package.sh

# Installs the package here with the toolchain's libraries hidden, runs the service's command
# as its user, removes and purges it (root only: dpkg -i).
package-test: package
	@if [ "$$(id -u)" = 0 ]; then bash scripts/package-test.sh "$$(ls -t .build/package/*.deb | head -1)"; \
	else echo "package-test skipped: installing a package needs root"; fi

# The API contract check alone (a few minutes).
contract: deps
	@bash scripts/ensure-packages.sh openssl
	$(SWIFT) build --product tollgate
	bash scripts/contract.sh .build/debug/tollgate

# Which source files one request runs through, measured with coverage counters
# (KIND=flow or purchase; WALK_LINES=1 adds the lines): the walks in docs/ARCHITECTURE.md.
walk: deps
	SWIFT=$(SWIFT) bash scripts/request-walk.sh $(or $(KIND),flow)

# Shows the layers have teeth: an upward import planted in each lower target fails the build.
layers-proof:
	SWIFT=$(SWIFT) bash scripts/layers-proof.sh

# The Apple-only glue and the seed pages' Apple-only samples, type-checked against interface
# stubs of AdServices, StoreKit, SwiftUI and UIKit (Tests/AppleGlueCheck).
apple-check:
	SWIFT=$(SWIFT) bash scripts/apple-check.sh

# Shows the check has teeth: a type error planted in each glue file must fail it.
apple-check-proof:
	SWIFT=$(SWIFT) bash scripts/apple-check.sh --prove

# Figures go to BENCHMARKS.md (a few minutes; loopback only).
bench: deps
	@bash scripts/ensure-packages.sh wrk curl
	bash scripts/with-postgres.sh bash Benchmarks/scripts/bench.sh

# Two commits' release builds by the server's CPU per cached answer, alternated three times:
# make bench-compare BEFORE=cabdbd6 AFTER=HEAD (WORKLOAD=attribution: attribution ingestion instead)
bench-compare: deps
	@bash scripts/ensure-packages.sh wrk curl
	COMPARE_WORKLOAD=$(or $(WORKLOAD),placement) bash Benchmarks/scripts/compare.sh $(BEFORE) $(AFTER)

# A day of a 1 000 000-daily-user app: 10 M profiles on PostgreSQL, four instances behind
# nginx (about 15 minutes after the build; figures to Benchmarks/scale.md, in BENCHMARKS.md).
bench-scale: deps
	@bash scripts/ensure-packages.sh wrk curl nginx
	TOLLGATE_POSTGRES_CONF=Benchmarks/scripts/postgresql-scale.conf bash scripts/with-postgres.sh \
	  bash Benchmarks/scripts/bench-scale.sh

# The first-launch demo with the development tools (tollgate-dev, not shipped).
demo: deps
	$(SWIFT) build -c release --product tollgate-dev
	.build/release/tollgate-dev demo --config examples/sample-config.json

# docs/cli.md from the tools' --help (a test checks they agree).
cli-doc:
	$(SWIFT) build --product tollgate
	$(SWIFT) build --product tollgate-dev
	bash scripts/cli-doc.sh .build/debug

format:
	$(SWIFT) format -i -r Sources Tests Plugins Benchmarks/TollgateBench Package.swift

lint:
	$(SWIFT) format lint -r Sources Tests Plugins Benchmarks/TollgateBench

clean:
	rm -rf .build

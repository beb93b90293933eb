# skewcheck: two commands do everything on a fresh machine.
#   make conformance   the main job: the suites against a local skewed control plane
#   make test          unit and integration tests (integration tests start real apiservers)
# Real kube-apiserver binaries are built from the Go module proxy the first time (about 4
# minutes per version on 2 cores) and cached outside the repo, in ~/.cache/skewcheck.

VERSIONS ?= v1.35.4,v1.36.3
REPORT_DIR ?= _reports
GO ?= go
SKEWCHECK := bin/skewcheck

.PHONY: all build deps binaries test unit conformance chaos bench clean

all: build

build:
	@mkdir -p bin
	$(GO) build -o $(SKEWCHECK) ./cmd/skewcheck

# nftables (the nft command) for packet-loss and partition faults. Installed from Debian's
# packages when missing and running as root; without it those faults are skipped with the
# reason, never failed.
deps:
	@command -v nft >/dev/null 2>&1 || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing nftables (for packet-loss and partition faults)"; \
		apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables >/dev/null; \
	else echo "nft not found and cannot install it: packet faults will be skipped"; fi; }

# Builds (or finds in the cache) the kube-apiserver of every version the tests use, saying
# what it does while it works, so no test waits minutes in silence.
binaries: build
	$(SKEWCHECK) binaries ensure --versions $(VERSIONS)

# The main job: mvp + discovery against a local v1.35.4 + v1.36.3 cluster. batch/v1 is off
# on the first server so the skew includes a resource with a subresource (jobs/status),
# besides the resources only 1.36 serves.
CONFORMANCE_FLAGS ?= --versions $(VERSIONS) --server-flag 1=--runtime-config=batch/v1=false --profiles mvp,discovery
# It runs twice: against upstream's proxy, then against skewcheck's reference peer proxy in
# front of apiservers with the gate off; then puts both side by side.
conformance: binaries
	$(SKEWCHECK) conformance $(CONFORMANCE_FLAGS) --report-dir $(REPORT_DIR)/upstream
	$(SKEWCHECK) conformance $(CONFORMANCE_FLAGS) --reference peerproxy --report-dir $(REPORT_DIR)/reference
	$(SKEWCHECK) report compare upstream=$(REPORT_DIR)/upstream reference=$(REPORT_DIR)/reference --out $(REPORT_DIR)

# Every fault, upstream and reference side by side: _reports/chaos/chaos.md.
chaos: deps binaries
	$(SKEWCHECK) chaos --versions $(VERSIONS) --fault all --targets upstream,reference --for 10s --report-dir $(REPORT_DIR)/chaos

unit:
	$(GO) test -short ./...

# Integration tests need root (UTS and network namespaces); they run one package at a time
# so two clusters never compete for the 2 cores during bring-up. -count=1: a cached result
# would hide a change in the apiserver binaries or the machine, which go test cannot see.
test: deps binaries
	$(GO) vet ./...
	$(GO) test -count=1 -p 1 -timeout 40m ./...

bench: binaries
	$(GO) test -run '^$$' -bench BringUp -benchtime 3x -timeout 30m ./clusters/local
	$(GO) test -run '^$$' -bench Proxied -benchtime 2s -timeout 30m ./reference/peerproxy

clean:
	rm -rf bin $(REPORT_DIR)

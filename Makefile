# skewcheck: two commands do everything on a fresh machine.
#   make conformance   the main job: the suites against a local skewed control plane
#   make test          unit and integration tests (integration tests start real apiservers)
# Real kube-apiserver binaries are built from the Go module proxy the first time (about 4
# minutes per version on 2 cores) and cached outside the repo, in ~/.cache/skewcheck.

comma := ,
# make conformance (and conformance-kind, node-images): the newest two stable releases the
# builder can get (v1.38.0-beta.0 needs k8s.io/apiextensions-api, which the Go module proxy
# here does not serve: docs/measurements.md, 2026-12-02); clusters.DefaultVersions says the
# same for the CLI.
VERSIONS ?= v1.36.3,v1.37.2
# make test, soak, bench, chaos and mutation: the pair their bounds, the chaos allowances and
# the mutation matrix's claims were measured on, which also keeps the behaviour only 1.35
# has (deviations, the ranges) covered beside the nightly.
TEST_VERSIONS ?= v1.35.4,v1.36.3
# The tests read their pair from these (internal/integration.Versions).
export SKEWCHECK_TEST_OLD ?= $(firstword $(subst $(comma), ,$(TEST_VERSIONS)))
export SKEWCHECK_TEST_NEW ?= $(lastword $(subst $(comma), ,$(TEST_VERSIONS)))
REPORT_DIR ?= _reports
GO ?= go
SKEWCHECK := bin/skewcheck

.PHONY: all build deps browser-deps inotify binaries test-binaries test soak unit docs conformance conformance-kind node-images skewcheck-image chaos nightly mutation ranges bench clean

all: build

# Static (no cgo), so the same binary also goes into FROM scratch images: the etcd of
# --provider containers, `skewcheck images reference`.
build:
	@mkdir -p bin
	CGO_ENABLED=0 $(GO) build -o $(SKEWCHECK) ./cmd/skewcheck

# nftables (nft) for packet-loss and partition faults, kube-proxy's nftables mode and the
# reference dataplane; iptables for kube-proxy's iptables mode; debootstrap for kind node
# images (the kind tests, with a Docker engine); busybox-static for the sh and cat of
# skewcheck's image (make skewcheck-image; hydrophone execs them). Installed from Debian's
# packages when missing and running as root. Without them a conformance or chaos run skips
# those faults and dataplanes with the reason; make test fails the tests that need them,
# unless SKEWCHECK_SKIP_NFT=1 says the machine lacks nftables knowingly (docs/test-prerequisites.md).
deps:
	@missing=""; command -v nft >/dev/null 2>&1 || missing="nftables"; \
	command -v iptables-restore >/dev/null 2>&1 || missing="$$missing iptables"; \
	command -v debootstrap >/dev/null 2>&1 || missing="$$missing debootstrap"; \
	[ -x /bin/busybox ] || missing="$$missing busybox-static"; \
	[ -z "$$missing" ] || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing$$missing (packet faults, kube-proxy's nftables and iptables modes, kind node images, the sh and cat of skewcheck's image)"; \
		apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else echo "$$missing not found and cannot install: runs will skip the faults and dataplanes that need them, and make test fails their tests"; fi; }
	@$(MAKE) --no-print-directory inotify

# Every kube-apiserver holds 6 inotify instances (its certificate reloaders), a
# kube-controller-manager 8, and each kind node's containerd and kubelet more; the kernel's
# default of 128 per user is shared by all of them, and make test runs tens side by side: a
# kind node whose containerd found none left failed to start ("failed to create fsnotify
# watcher: too many open files", 2026-12-02). So, as kind's known-issues page advises, the
# limits are raised to 512 instances and 524288 watches when lower, running as root.
inotify:
	@i=$$(cat /proc/sys/fs/inotify/max_user_instances 2>/dev/null || echo 512); w=$$(cat /proc/sys/fs/inotify/max_user_watches 2>/dev/null || echo 524288); \
	if [ "$$i" -lt 512 ] || [ "$$w" -lt 524288 ]; then \
		if [ "$$(id -u)" = 0 ]; then echo "raising fs.inotify.max_user_instances to 512 and max_user_watches to 524288 (was $$i and $$w): the apiservers and kind nodes of make test share them"; \
			[ "$$i" -ge 512 ] || sysctl -q -w fs.inotify.max_user_instances=512; [ "$$w" -ge 524288 ] || sysctl -q -w fs.inotify.max_user_watches=524288; \
		else echo "fs.inotify.max_user_instances is $$i and max_user_watches $$w: kind nodes may fail to start with 'too many open files'; as root: sysctl -w fs.inotify.max_user_instances=512 fs.inotify.max_user_watches=524288"; fi; fi

# Builds (or finds in the cache) the kube-apiserver of every version a job uses, and the
# kube-proxy of the newest, saying what it does while it works, so no test waits minutes in
# silence: binaries for make conformance's VERSIONS, test-binaries for TEST_VERSIONS (and
# the kube-controller-manager of the older, which the controllers profile's test runs).
NEWEST = $(lastword $(subst $(comma), ,$(VERSIONS)))
OLDEST = $(firstword $(subst $(comma), ,$(VERSIONS)))
binaries: build
	$(SKEWCHECK) binaries ensure --versions $(VERSIONS)
	$(SKEWCHECK) binaries ensure --versions $(NEWEST) --components kube-proxy
test-binaries: build
	$(SKEWCHECK) binaries ensure --versions $(TEST_VERSIONS)
	$(SKEWCHECK) binaries ensure --versions $(lastword $(subst $(comma), ,$(TEST_VERSIONS))) --components kube-proxy
	$(SKEWCHECK) binaries ensure --versions $(firstword $(subst $(comma), ,$(TEST_VERSIONS))) --components kube-controller-manager

# The main job: mvp + discovery against a local v1.36.3 + v1.37.2 cluster. batch/v1 is off
# on the first server so the skew includes a resource with a subresource (jobs/status),
# besides what only one release serves; autoscaling/v2 is off on the second, so requests
# are also proxied from the newer server to the older (an API a newer release removed).
# It is clusters.SkewedPair, and THREE_SERVERS clusters.HighlyAvailable: cmd/skewcheck/app's
# TestMakefileShapesAreTheClustersShapes reads both here and holds them to the Go shapes.
CONFORMANCE_FLAGS ?= --versions $(VERSIONS) --server-flag 1=--runtime-config=batch/v1=false \
	--server-flag 2=--runtime-config=autoscaling/v2=false --profiles mvp,discovery
# It runs against upstream's proxy and against skewcheck's reference peer proxy in front of
# apiservers with the gate off, side by side in _reports/comparison.md; the ipmode profile
# once per service dataplane (real kube-proxy in two modes, and the reference), each on the
# same two apiserver versions, side by side in _reports/ipmode (kube-proxy-ipvs is left out:
# this kernel has no IPVS, it would skip with the reason); mvp and discovery again on three
# servers, an HA control plane mid-upgrade with two at the newer version, where a proxy has
# two peers to choose from and a second hop somewhere to go (_reports/three-servers); and the gateway profile against
# skewcheck's reference gateway (_reports/gateway).
# The runs are independent, each on a cluster of its own (its own loopback block, network
# namespaces and ports), and mostly wait on the apiservers, so they run CONFORMANCE_JOBS at
# a time; each run's output is printed whole when it ends (--output-sync). CONFORMANCE_JOBS=1
# runs them one after another.
DATAPLANES ?= kube-proxy-nftables kube-proxy-iptables reference
CONFORMANCE_JOBS ?= 3
CONFORMANCE_RUNS = conformance-upstream conformance-reference $(addprefix conformance-ipmode-,$(DATAPLANES)) \
	conformance-three-servers-upstream conformance-three-servers-reference conformance-gateway
.PHONY: $(CONFORMANCE_RUNS)
# Every queued run runs, whatever the others' verdicts: a run's recipe keeps skewcheck's
# exit code (0 passed, 1 failed, 2 incomplete) in $(REPORT_DIR)/exit-codes/<run> and
# succeeds, since make would stop at a failed recipe, and turns any code into its own 2.
# The comparisons follow, then the run's code: 1 if any run failed (or left no code), else
# 2 if any was incomplete, else 0. It is the last line and $(REPORT_DIR)/exit-code, which
# CI reads; make's own status is 0 or, for 1 and 2 alike, 2 (docs/reading-a-report.md).
EXIT_CODES = $(REPORT_DIR)/exit-codes
record = mkdir -p $(EXIT_CODES); $(2); code=$$?; echo "== $(1): skewcheck exit $$code"; echo $$code > $(EXIT_CODES)/$(1)
conformance: deps binaries
	@rm -rf $(EXIT_CODES) $(REPORT_DIR)/exit-code
	@echo "== $(words $(CONFORMANCE_RUNS)) conformance runs, $(CONFORMANCE_JOBS) at a time; each prints its output when it ends"
	@$(MAKE) --no-print-directory -j$(CONFORMANCE_JOBS) --output-sync=target $(CONFORMANCE_RUNS)
	-$(SKEWCHECK) report compare upstream=$(REPORT_DIR)/upstream reference=$(REPORT_DIR)/reference --out $(REPORT_DIR)
	-$(SKEWCHECK) report compare $(foreach d,$(DATAPLANES),$(d)=$(REPORT_DIR)/ipmode/$(d)) --out $(REPORT_DIR)/ipmode
	@code=0; for r in $(CONFORMANCE_RUNS); do c=$$(cat $(EXIT_CODES)/$$r 2>/dev/null || echo 1); \
		case $$c in 0) ;; 2) [ $$code = 1 ] || code=2 ;; *) code=1; echo "== $$r: exit $$c" ;; esac; done; \
	echo $$code > $(REPORT_DIR)/exit-code; \
	echo "exit codes: 0 every run passed, 1 a run failed, 2 nothing failed but tests could not run (the code is also in $(REPORT_DIR)/exit-code)"; \
	case $$code in 0) what="every run passed" ;; 2) what="nothing failed, but tests could not run" ;; *) what="a run failed" ;; esac; \
	echo "make conformance: exit code $$code ($$what)"; \
	exit $$code

conformance-upstream:
	@echo "== mvp and discovery, upstream's proxy"
	@$(call record,$@,$(SKEWCHECK) conformance $(CONFORMANCE_FLAGS) --report-dir $(REPORT_DIR)/upstream)
conformance-reference:
	@echo "== mvp and discovery, skewcheck's reference peer proxy in front of apiservers with the gate off"
	@$(call record,$@,$(SKEWCHECK) conformance $(CONFORMANCE_FLAGS) --reference peerproxy --report-dir $(REPORT_DIR)/reference)
# One explicit rule per dataplane: make searches no pattern rule for a phony target.
define ipmode_run
conformance-ipmode-$(1):
	@echo "== ipmode profile, dataplane $(1)"
	@$$(call record,$$@,$$(SKEWCHECK) conformance --versions $$(VERSIONS) --profiles ipmode --dataplane $(1) --report-dir $$(REPORT_DIR)/ipmode/$(1))
endef
$(foreach d,$(DATAPLANES),$(eval $(call ipmode_run,$(d))))
# batch/v1 off on the first, autoscaling/v2 off on the two newer: batch/v1 has two peers,
# autoscaling/v2 one, and two entries share each route's GVR.
THREE_SERVERS = --versions $(OLDEST),$(NEWEST),$(NEWEST) --server-flag 1=--runtime-config=batch/v1=false \
	--server-flag 2=--runtime-config=autoscaling/v2=false --server-flag 3=--runtime-config=autoscaling/v2=false --profiles mvp,discovery
conformance-three-servers-upstream:
	@echo "== mvp and discovery on three servers, upstream: two peers serve what the first lacks; a request must reach one of them, once"
	@$(call record,$@,$(SKEWCHECK) conformance $(THREE_SERVERS) --report-dir $(REPORT_DIR)/three-servers/upstream)
conformance-three-servers-reference:
	@echo "== mvp and discovery on three servers, the reference peer proxy"
	@$(call record,$@,$(SKEWCHECK) conformance $(THREE_SERVERS) --reference peerproxy --report-dir $(REPORT_DIR)/three-servers/reference)
conformance-gateway:
	@echo "== gateway profile, skewcheck's reference gateway in front of both apiservers"
	@$(call record,$@,$(SKEWCHECK) conformance --versions $(VERSIONS) --gateway reference --report-dir $(REPORT_DIR)/gateway)

# skewcheck's own image, which runs inside the cluster under test (skewcheck certify,
# sonobuoy, hydrophone): FROM scratch, the binary built with the tag incluster (only what
# runs inside: no embedded etcd, kind or Docker client), stripped, and the static busybox
# deps installs as its sh and cat, for hydrophone's exec; about 62 MB.
SKEWCHECK_IMAGE ?= skewcheck/skewcheck:dev
skewcheck-image: build
	CGO_ENABLED=0 $(GO) build -tags incluster -trimpath -ldflags="-s -w" -o bin/skewcheck-incluster ./cmd/skewcheck
	$(SKEWCHECK) images skewcheck --binary bin/skewcheck-incluster --tag $(SKEWCHECK_IMAGE)

# kind node images of every version, built offline (debootstrap, the Go module proxy): see
# docs/providers.md (kind clusters, built offline). Needs root and a Docker engine; cached.
node-images: build
	@set -e; for v in $(subst $(comma), ,$(VERSIONS)); do $(SKEWCHECK) images node --version $$v; done

# The mvp and discovery profiles on kind: one kind control-plane node per version (the
# first runs kubeadm init, the others join with their own version's static pods), behind
# kind's load balancer. Then the ipmode profile with kube-proxy (nftables) on the newest
# node, in the node's network namespace. Each cluster is made for its run and deleted
# after it.
conformance-kind: deps node-images binaries
	$(SKEWCHECK) conformance --provider kind $(CONFORMANCE_FLAGS) --report-dir $(REPORT_DIR)/kind
	$(SKEWCHECK) conformance --provider kind --versions $(VERSIONS) --profiles ipmode --dataplane kube-proxy-nftables --report-dir $(REPORT_DIR)/kind-ipmode

# Every fault, upstream and reference side by side: _reports/chaos/chaos.md.
chaos: deps test-binaries
	$(SKEWCHECK) chaos --versions $(TEST_VERSIONS) --fault all --targets upstream,reference --for 10s --report-dir $(REPORT_DIR)/chaos

# The version matrix, as a nightly upgrade-skew job runs it: for every adjacent pair, the
# conformance profiles and a rolling upgrade of 3 servers and its rollback (upgrade, then
# downgrade back), with a crash during every step, its emulated-vs-real comparison and its
# soak profile; the newest pair on kind and containers; the mutation matrix (below) on the
# newest pair; the version ranges' far ends (make ranges, below).
# Builds each kube-apiserver it lacks first (about 5 minutes each on 2 cores, cached).
# Opens with _reports/nightly/index.html; exit 1 on any failure.
# On several machines: one plan (bin/skewcheck nightly --plan > plan.json), and on each
# machine NIGHTLY_PLAN=plan.json NIGHTLY_SHARD=i/n and one NIGHTLY_SEED, then
# `bin/skewcheck report merge --out DIR SHARD-DIRS...` (.ci/github-workflow.yml does so).
NIGHTLY_VERSIONS ?= 1.33,1.34,1.35,1.36,1.37,v1.38.0-beta.0
NIGHTLY_SHARD ?= 1/1
NIGHTLY_SEED ?= 0
NIGHTLY_PLAN ?=
nightly: deps build
	$(SKEWCHECK) nightly --versions $(NIGHTLY_VERSIONS) --shard $(NIGHTLY_SHARD) --seed $(NIGHTLY_SEED) $(if $(NIGHTLY_PLAN),--plan-file $(NIGHTLY_PLAN)) --report-dir $(REPORT_DIR)/nightly

# The mutation matrix (docs/mutation.md): every flawed variant of the references (the peer
# proxy's flaws, the gateway's defects, the dataplane's flawed variants) against the tests
# it claims, each baseline against every test, each run on a cluster of its own, three at a
# time: about 21 min on 2 cores (2026-11-28, docs/mutation.md).
# Writes _reports/mutation/mutation.md and mutation.json; exit 1 when a test no mutant fails,
# or a mutant no test catches, has no reason in suites/mutation.go. The nightly runs it too.
mutation: deps test-binaries
	$(SKEWCHECK) mutation --versions $(TEST_VERSIONS) --report-dir $(REPORT_DIR)/mutation

# The version ranges' far ends, which the matrix of adjacent supported pairs never
# reaches: the nightly's ranges/ jobs alone (suites.RangeEnds says which and why: 1.27,
# before the proxy's gate, where mvp, chaos and gateway must skip; 1.28 and 1.32, the
# oldest release with the gate and the last whose proxy goes by StorageVersions; 1.29,
# before ipMode's beta; 1.35 alone, before the discovery deviation of 1.36), each one
# release twice with batch/v1 off on the first server; index.html and the runs in
# $(REPORT_DIR)/ranges. Then every range is set against these runs and, when there is
# one, the last nightly: $(REPORT_DIR)/ranges/ranges.md. Builds the four older
# kube-apiservers it lacks. A run's own verdict is not this target's: skipping a profile by
# range is the point, and makes the run "partial". What fails it is a run that left no
# report, or a range a run contradicts (a test failing inside its range, or running
# outside it).
ranges: deps build
	@failed=""; $(SKEWCHECK) nightly --jobs '^ranges/' --seed 11 --report-dir $(REPORT_DIR)/ranges || failed=" the far ends' runs"; \
	$(SKEWCHECK) report ranges $(REPORT_DIR)/ranges $(wildcard $(REPORT_DIR)/nightly) --out $(REPORT_DIR)/ranges/ranges.md || failed="$$failed the ranges"; \
	[ -z "$$failed" ] || { echo "== ranges: failed:$$failed"; exit 1; }

unit:
	$(GO) test -short ./...
	$(GO) test -short -tags incluster ./cmd/skewcheck/app

# docs/tests.md, the test catalogue, and docs/chaos.md's table of fault kinds are written from
# the suites' own tables and the fault registry; make test (internal/catalogue's
# TestCatalogueIsCurrent, TestFaultTableIsCurrent) fails until this has run after a change.
docs:
	$(GO) run ./internal/catalogue -o docs/tests.md -faults docs/chaos.md

# Integration tests need root (UTS and network namespaces). Four packages run side by side
# (TEST_P: with three, the cores were 30 to 60 % idle for much of a run, 2026-11-29), and
# within cmd/skewcheck its cluster tests run three at a time (its TestMain raises go test's
# -parallel default of one per core; ginkgo refuses a -parallel given to go test, so it
# cannot be raised here): most of their time is waiting (faults held, partitions timing
# out, kind nodes booting), so the cores were idle two thirds of a one-at-a-time run.
# Clusters take their own loopback /24, images and binaries are built under machine-wide
# locks, and each test looks for what it left behind by its own marks (owner pids, its
# environment mark), never by name, so side by side is safe. -count=1: a cached result
# would hide a change in the apiserver binaries or the machine, which go test cannot see.
# A test whose prerequisite (root, Docker, nftables) is missing fails, unless the machine
# says it lacks it knowingly (SKEWCHECK_SKIP_*=1: docs/test-prerequisites.md). go test -json goes
# through internal/testsummary, which writes what plain go test writes (the ok and FAIL
# lines, failed tests' output) and then every skipped test with its reason, the ten
# slowest tests and the time per package, ending with the verdict; the raw go test -json
# stream is kept in $(TEST_JSON), for any other question about where the time went. The
# summary is built before the tests start, so a broken summary costs seconds, not a
# 40-minute run. bash with pipefail
# keeps go test's exit status (make's /bin/sh may be dash, which has no pipefail).
TESTSUMMARY := bin/testsummary
TEST_JSON ?= $(REPORT_DIR)/make-test.json
TEST_P ?= 4
# go test starts packages in the order it is given them, TEST_P at a time: the longest go
# first, so that those that mostly wait (upstream's held faults and timeouts) wait while
# the CPU-bound ones run, not alone at the end. Listed last, suites (TestUpstreamIsConformant,
# 7 min) ran its last 4 minutes alone at 97 % idle (2026-11-29, docs/measurements.md).
# Then the packages of a minute or so, before the forty of seconds: behind those, in
# go test's alphabetical order, scenarios/races started 10 minutes in and ended the run
# (2026-11-29, session 34). ./... adds every other package once.
TEST_FIRST ?= ./cmd/skewcheck ./suites ./reference/peerproxy ./scenarios/chaos ./clusters/kind ./scenarios/upgrade \
	./clusters/containers/cluster ./clusters/local ./scenarios/races
test: SHELL := /bin/bash
test: .SHELLFLAGS := -o pipefail -c
test: deps test-binaries
	@files=$$(gofmt -l cmd clusters framework internal reference scenarios suites); \
	  if [ -n "$$files" ]; then echo "not gofmt'ed (run gofmt -w on them): $$files"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags incluster ./cmd/skewcheck/...
	$(GO) build -o $(TESTSUMMARY) ./internal/testsummary
	@mkdir -p $(dir $(TEST_JSON))
	$(GO) test -json -count=1 -p $(TEST_P) -timeout 40m $(TEST_FIRST) ./... 2>&1 | tee $(TEST_JSON) | $(TESTSUMMARY)

# The long holds and full tables, which make test keeps shorter: the integration tests that
# hold a silent fault or a stale lease (the conformance runs of upstream and of the
# reference, and the reference's flawed variants) with the CLI's 60 s hold past the first
# 503 instead of make test's 20 s (internal/integration/timeouts.go says why 20 s still
# catches a 404 after a refresh), and the end-to-end tests' full tables (every mvp and
# discovery test through kind's fronts and, compared, through a found cluster's three ways
# in; the image dataplane on kind; every gateway test on the image; the gateway's defects of
# identity, SNI, connections and refusals; every fault kind on containers), and the
# gateway's 10-minute soak (TestGatewaySoak, its curve in REPORT_DIR/gateway-soak.txt).
# docs/development.md lists what guards what. make conformance, make chaos and the nightly hold 60 s too.
# Every native fuzz target of the references, each for FUZZTIME, one after another.
FUZZTIME ?= 30s
FUZZ_TARGETS ?= FuzzHeadersSet:./reference/internal/authn FuzzStripIdentity:./reference/internal/authn \
	FuzzNamedHopByHop:./reference/internal/authn FuzzAuthenticate:./reference/internal/authn \
	FuzzServeHTTP:./reference/peerproxy FuzzParsePath:./reference/peerproxy FuzzPeerURL:./reference/peerproxy \
	FuzzPickPeers:./reference/peerproxy FuzzMergeDiscovery:./reference/peerproxy FuzzLegacyGroupList:./reference/peerproxy \
	FuzzGatewayServeHTTP:./reference/gateway FuzzParseRequestInfo:./reference/gateway FuzzRuleMatching:./reference/gateway \
	FuzzUpstreamCluster:./reference/gateway FuzzClusterFor:./reference/gateway
.PHONY: fuzz
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; pkg=$${t#*:}; echo "fuzz: $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

# Debian's chromium, for make soak's browser test (TestMorningPagesInChromium) alone: installed
# when missing and running as root, as deps does.
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium (make soak opens the night's pages in it)"; \
		apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "chromium not found and cannot install: make soak's browser test fails, saying how to install it"; fi; }

soak: SHELL := /bin/bash
soak: .SHELLFLAGS := -o pipefail -c
soak: deps browser-deps test-binaries fuzz
	$(GO) build -o $(TESTSUMMARY) ./internal/testsummary
	SKEWCHECK_TEST_HOLD=60s SKEWCHECK_SOAK_CURVE=$(abspath $(REPORT_DIR))/gateway-soak.txt $(GO) test -json -count=1 -p 1 -timeout 90m -run 'IsConformant|TestUpstreamSoak|TestReferenceSoak|FlawedReference|TestSidecarImage|TestKindFronts|TestKindDataplanes|TestKindClusterAsItRuns|TestKindObserveInertUpgrade|TestContainersChaos|TestGatewayImage|TestDataplanes|TestGatewayProfile|TestMorningPagesInChromium|TestGatewaySoak' ./suites ./reference/peerproxy ./reference/gateway ./cmd/skewcheck 2>&1 | $(TESTSUMMARY)

bench: test-binaries
	$(GO) test -run '^$$' -bench BringUp -benchtime 3x -timeout 30m ./clusters/local
	$(GO) test -run '^$$' -bench Proxied -benchtime 2s -timeout 30m ./reference/peerproxy
	$(GO) test -run '^$$' -bench . -benchtime 20x ./reference/ipmode ./clusters/dataplane
	$(GO) test -run '^$$' -bench Gateway -benchtime 2s -timeout 15m ./reference/gateway

clean:
	rm -rf bin $(REPORT_DIR)

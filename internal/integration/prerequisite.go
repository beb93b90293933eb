package integration

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A prerequisite is something of the machine's that some integration tests need besides
// root: a Docker engine, nftables. The machine `make test` runs on has them (make deps
// installs the tools; the README names the Docker engine), so a test that finds one
// missing fails, saying what to install: a `make test` that skipped them would go green
// having run none of them. A machine that lacks one knowingly says so with the
// prerequisite's SKEWCHECK_SKIP_* variable (or SKEWCHECK_SKIP_INTEGRATION for all), and
// the tests skip with that reason; `go test -short` skips them too.
type prerequisite struct {
	what    string // what the tests need, as a noun: "a Docker engine"
	skipEnv string // set to 1 to skip the tests that need it, knowingly
	install string // how to get it
}

var (
	docker = prerequisite{what: "a Docker engine", skipEnv: "SKEWCHECK_SKIP_DOCKER",
		install: "start one (systemctl start docker), or point DOCKER_HOST at one"}
	kind = prerequisite{what: "a Docker engine for kind nodes", skipEnv: "SKEWCHECK_SKIP_KIND",
		install: "start one (systemctl start docker), or point DOCKER_HOST at one; cold, the kind tests also build two node images (about 25 minutes on 2 cores)"}
	nft = prerequisite{what: "nftables (nft, run as root)", skipEnv: "SKEWCHECK_SKIP_NFT",
		install: "run make deps, which installs it (apt-get install nftables), and run the tests as root"}
)

// RequireDocker needs a Docker engine: connect is the test's own way of reaching it (the
// engine found as the code under test finds it), run only when the test is not skipped.
func RequireDocker(t testing.TB, connect func() error) {
	t.Helper()
	docker.require(t, connect)
}

// RequireKind needs what the kind tests need: connect reaches the Docker engine kind's
// nodes run on. SKEWCHECK_SKIP_KIND=1 skips them, where building node images does not fit
// a CI job's time limit.
func RequireKind(t testing.TB, connect func() error) {
	t.Helper()
	kind.require(t, connect)
}

// RequireNft needs nft, usable: it lists the tables, as root.
func RequireNft(t testing.TB) {
	t.Helper()
	nft.require(t, func() error {
		path, err := exec.LookPath("nft")
		if err != nil {
			return fmt.Errorf("no nft on PATH")
		}
		if out, err := exec.Command(path, "list", "tables").CombinedOutput(); err != nil {
			return fmt.Errorf("%s list tables: %v: %s", path, err, strings.TrimSpace(string(out)))
		}
		return nil
	})
}

func (p prerequisite) require(t testing.TB, present func() error) {
	t.Helper()
	skip, fail := p.decide(testing.Short(), os.Getenv, present)
	if skip != "" {
		t.Skip(skip)
	}
	if fail != "" {
		t.Fatal(fail)
	}
}

// decide says whether a test needing p is skipped, failed before it starts, or run.
// present is asked only when the test is neither -short nor skipped knowingly.
func (p prerequisite) decide(short bool, getenv func(string) string, present func() error) (skip, fail string) {
	switch {
	case short:
		return "needs " + p.what + ": an integration test, run without -short (make test)", ""
	case getenv(p.skipEnv) == "1":
		return "needs " + p.what + ": skipped as asked by " + p.skipEnv + "=1", ""
	case getenv(SkipEnv) == "1":
		return "needs " + p.what + ": skipped as asked by " + SkipEnv + "=1", ""
	}
	if err := present(); err != nil {
		return "", fmt.Sprintf("needs %s, which this machine lacks (%v): %s; or set %s=1 to skip these tests knowingly",
			p.what, err, p.install, p.skipEnv)
	}
	return "", ""
}

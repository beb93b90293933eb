package dataplane

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/skewcheck/skewcheck/reference/ipmode"
)

// Reference runs skewcheck's reference dataplane (reference/ipmode) as the dataplane under
// test. The process is this very binary (the CLI or a test binary) re-executed on the node
// with referenceEnv set, so tests need no separately built command; RunReferenceIfCalled,
// called first thing in main and TestMain, is where the re-executed binary becomes the
// dataplane.
type Reference struct {
	IgnoreIPMode bool
	// Flaw is one of the reference's deliberate flaws (ipmode.Flaws); none as shipped.
	Flaw ipmode.Flaw
}

// ReferenceFlawed lists the reference's deliberately wrong variants, each a dataplane the
// ipmode profile must fail: the registry --dataplane selects them from by Name, and the
// mutants of `skewcheck mutation`. A variant added here, or a flaw added to ipmode.Flaws,
// joins both with no other edit.
func ReferenceFlawed() []Reference {
	out := []Reference{{IgnoreIPMode: true}}
	for _, f := range ipmode.Flaws() {
		out = append(out, Reference{Flaw: f})
	}
	return out
}

const referenceEnv = "SKEWCHECK_REFERENCE_IPMODE"

// referenceHooked is set by RunReferenceIfCalled: a binary that never calls it would, re-
// executed, run its own main (or every test) again instead of the dataplane.
var referenceHooked bool

func (r Reference) Name() string {
	switch {
	case r.IgnoreIPMode:
		return "reference-ignoring-ipmode"
	case r.Flaw != ipmode.NoFlaw:
		return "reference-" + string(r.Flaw)
	}
	return "reference"
}

// Release is empty: the reference is versioned with skewcheck.
func (r Reference) Release() string { return "" }

func (r Reference) Unsupported() string {
	if _, err := exec.LookPath("nft"); err != nil {
		return "the reference dataplane needs the nft command (Debian package nftables; `make deps` installs it)"
	}
	return ""
}

func (r Reference) Process(_ context.Context, n NodeInfo) (Process, error) {
	if !referenceHooked {
		return Process{}, errors.New("this binary cannot run the reference dataplane: it runs by re-executing the binary, whose main (or TestMain, in a test binary) must call reexec.RunIfCalled() (internal/reexec) or dataplane.RunReferenceIfCalled() first")
	}
	self, err := os.Executable()
	if err != nil {
		return Process{}, fmt.Errorf("finding this binary, to re-execute it as the reference dataplane: %w", err)
	}
	cfg, err := json.Marshal(ipmode.Config{Kubeconfig: n.Kubeconfig, NodeName: n.Name, IgnoreIPMode: r.IgnoreIPMode, Flaw: r.Flaw})
	if err != nil {
		return Process{}, err
	}
	return Process{Argv: []string{self}, Env: []string{referenceEnv + "=" + string(cfg)}}, nil
}

// RunReferenceIfCalled is the reference dataplane's entry point: when this binary was
// re-executed by Reference.Process, it runs the dataplane until SIGTERM and exits;
// otherwise it returns at once. It is registered with internal/reexec, whose RunIfCalled
// main, and TestMain of a test binary that may run the reference dataplane, call first.
func RunReferenceIfCalled() {
	referenceHooked = true
	raw := os.Getenv(referenceEnv)
	if raw == "" {
		return
	}
	var cfg ipmode.Config
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "skewcheck reference ipmode: bad %s: %v\n", referenceEnv, err)
		os.Exit(2)
	}
	cfg.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := ipmode.Run(ctx, cfg)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "skewcheck reference ipmode:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

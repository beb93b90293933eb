package ipmode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/skewcheck/skewcheck/clusters/dataplane"
)

// Spec runs the reference as the dataplane under test. The process is this very binary
// (the CLI or a test binary) re-executed on the node with runEnv set: init below sees it
// and runs the dataplane instead of main, so tests need no separately built command.
type Spec struct{ IgnoreIPMode bool }

const runEnv = "SKEWCHECK_REFERENCE_IPMODE"

// Flawed lists the reference's deliberately wrong variants, each a dataplane the ipmode
// profile must fail: the registry --dataplane selects them from by Name, and the mutants
// of `skewcheck mutation`. A variant added here joins both with no other edit.
func Flawed() []Spec { return []Spec{{IgnoreIPMode: true}} }

func (s Spec) Name() string {
	if s.IgnoreIPMode {
		return "reference-ignoring-ipmode"
	}
	return "reference"
}

// Release is empty: the reference is versioned with skewcheck.
func (s Spec) Release() string { return "" }

func (s Spec) Unsupported() string {
	if _, err := exec.LookPath("nft"); err != nil {
		return "the reference dataplane needs the nft command (Debian package nftables; `make deps` installs it)"
	}
	return ""
}

func (s Spec) Process(_ context.Context, n dataplane.NodeInfo) (dataplane.Process, error) {
	self, err := os.Executable()
	if err != nil {
		return dataplane.Process{}, err
	}
	cfg, _ := json.Marshal(Config{Kubeconfig: n.Kubeconfig, NodeName: n.Name, IgnoreIPMode: s.IgnoreIPMode})
	return dataplane.Process{Argv: []string{self}, Env: []string{runEnv + "=" + string(cfg)}}, nil
}

func init() {
	raw := os.Getenv(runEnv)
	if raw == "" {
		return
	}
	var cfg Config
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "skewcheck reference ipmode: bad %s: %v\n", runEnv, err)
		os.Exit(2)
	}
	cfg.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "skewcheck reference ipmode:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

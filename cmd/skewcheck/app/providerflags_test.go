//go:build !incluster

package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/images"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/registry"
)

// TestProviderErrorsNameFlags: the library's typed errors reach the user worded with the
// flags that asked, and the providers that have what is missing.
func TestProviderErrorsNameFlags(t *testing.T) {
	for c, flag := range capabilityFlags {
		err := wordError(fmt.Errorf("making it: %w", clusters.ErrNotSupported{Provider: "kind", Capability: c}))
		if !strings.Contains(err.Error(), flag) || !strings.Contains(err.Error(), "not supported with --provider kind") {
			t.Errorf("%s: %v, want %s named", c, err, flag)
		}
	}
	err := wordError(clusters.Require("kvm"))
	if !strings.Contains(err.Error(), `unknown provider "kvm"`) || !strings.Contains(err.Error(), "local") {
		t.Errorf("unknown provider: %v", err)
	}
	apiserver := fmt.Errorf("starting: %w", clusters.ErrPortInUse{Role: clusters.ServerPort, IP: "127.77.1.11", Port: 16443, Err: errors.New("bind")})
	if err := wordError(apiserver); !strings.Contains(err.Error(), "port 16443") || !strings.Contains(err.Error(), "--port") {
		t.Errorf("an apiserver's port: %v, want --port suggested", err)
	}
	if err := wordError(clusters.ErrPortInUse{Role: "etcd", Port: 2379, Err: errors.New("bind")}); strings.Contains(err.Error(), "--port") {
		t.Errorf("etcd's port: %v; --port does not move it", err)
	}
	if err := wordError(registry.ErrExists{Name: "taken", Supervisor: 7}); !strings.Contains(err.Error(), "already exists") || !strings.Contains(err.Error(), "cluster delete --name taken") {
		t.Errorf("a taken name: %v", err)
	}
	named := fmt.Errorf("ensuring: %w", binaries.ErrNamedBinary{Key: "kube-apiserver@v1.36.3", Path: "/x", Problem: "not executable; chmod +x it"})
	if err := wordError(named); err.Error() != "ensuring: --binary kube-apiserver@v1.36.3=/x: not executable; chmod +x it" {
		t.Errorf("a binary named with --binary: %v", err)
	}
	fromEnv := binaries.ErrNamedBinary{Key: "kube-apiserver@v1.36.3", Path: "/x", FromEnv: true, Problem: "missing"}
	if err := wordError(fromEnv); err.Error() != "$SKEWCHECK_BINARIES entry kube-apiserver@v1.36.3=/x: missing" {
		t.Errorf("a binary named in the environment: %v", err)
	}
	if err := wordError(fmt.Errorf("building: %w", images.ErrDynamic{Path: "/bin/sleep"})); !strings.Contains(err.Error(), "dynamically linked") || !strings.Contains(err.Error(), "--static-binary") {
		t.Errorf("a dynamic binary: %v, want --static-binary named", err)
	}
	if err := wordError(local.ErrNoPrivilege{Err: errors.New("EPERM")}); !strings.HasSuffix(err.Error(), "or test a cluster that runs with --kubeconfig") {
		t.Errorf("no privilege: %v, want --kubeconfig named", err)
	}
	other := errors.New("no Kubernetes v1.99.0")
	if wordError(other) != other || wordError(nil) != nil {
		t.Error("errors of other kinds must pass unchanged")
	}
	// Every capability a provider declares can be worded with a flag.
	for _, p := range clusters.Providers() {
		for _, c := range p.Capabilities {
			if capabilityFlags[c] == "" {
				t.Errorf("provider %s declares %q, which no flag asks for in capabilityFlags", p.Name, c)
			}
		}
	}
}

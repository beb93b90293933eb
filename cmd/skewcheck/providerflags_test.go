package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
)

// TestProviderErrorsNameFlags: the library's typed errors reach the user worded with the
// flags that asked, and the providers that have what is missing.
func TestProviderErrorsNameFlags(t *testing.T) {
	for c, flag := range capabilityFlags {
		err := wordProviderError(fmt.Errorf("making it: %w", clusters.ErrNotSupported{Provider: "kind", Capability: c}))
		if !strings.Contains(err.Error(), flag) || !strings.Contains(err.Error(), "not supported with --provider kind") {
			t.Errorf("%s: %v, want %s named", c, err, flag)
		}
	}
	err := wordProviderError(clusters.Require("kvm"))
	if !strings.Contains(err.Error(), `unknown provider "kvm"`) || !strings.Contains(err.Error(), "local") {
		t.Errorf("unknown provider: %v", err)
	}
	other := errors.New("no Kubernetes v1.99.0")
	if wordProviderError(other) != other || wordProviderError(nil) != nil {
		t.Error("errors of other kinds must pass unchanged")
	}
	// Every capability a provider declares can be worded with a flag.
	for _, p := range clusters.Providers() {
		for _, c := range p.Capabilities {
			if capabilityFlags[c] == "" && c != clusters.Disconnection && c != clusters.DataplaneMachineCapability {
				t.Errorf("provider %s declares %q, which no flag asks for in capabilityFlags", p.Name, c)
			}
		}
	}
}

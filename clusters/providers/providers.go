//go:build !incluster

// Package providers registers every provider skewcheck ships with package clusters, so that
// package clusters imports none of them. A new provider is its own package with a
// Registration and one line here. It is also where a front or a dataplane that lives in a
// package of its own is imported for its registration (a blank import): cmd and
// internal/layers' name check import this package, so both see every registered name.
package providers

import (
	"github.com/skewcheck/skewcheck/clusters"
	containers "github.com/skewcheck/skewcheck/clusters/containers/cluster"
	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/clusters/kind"
	"github.com/skewcheck/skewcheck/clusters/local"
)

// Default is the provider a command uses when none is named: processes of this machine,
// no Docker.
const Default = "local"

func init() {
	clusters.Register(local.Registration())
	clusters.Register(kind.Registration())
	clusters.Register(containers.Registration())
	clusters.Register(existing.Registration())
}

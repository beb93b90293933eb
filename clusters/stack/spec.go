// Package stack assembles what a run tests, bottom to top: a cluster (made or found by a
// provider, or endpoints named by hand), what stands in front of its apiservers, and the
// service dataplane on it. It is the one entry point that skewcheck's commands, its tests
// and a vendor importing skewcheck call: a Spec of plain values in, Build, a Run whose
// Target the suites take (framework.Run) and whose Close undoes everything Build made.
package stack

import (
	"io"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/front"
	"github.com/skewcheck/skewcheck/framework"
)

// Spec is one run's stack. Each layer above the cluster is left out by its zero value.
type Spec struct {
	// Provider is the registered provider (clusters.Providers) that makes the cluster, or
	// finds one that runs (existing); unused with Contexts.
	Provider string
	// Cluster is what Provider makes, or where it finds the cluster; its Progress is where
	// the provider tells the bring-up.
	Cluster clusters.Spec
	// Contexts, when set, is the target instead of a cluster: endpoints named by hand.
	Contexts *Contexts
	// Front stands before the cluster's apiservers and is what clients reach: a reference
	// (front.LookupReference), a vendor's sidecar (clusters/sidecar) or gateway
	// (clusters/gateway); nil for none. Whether the apiservers' own proxy is off under it
	// is the Cluster's servers' say (ServerSpec.DisablePeerProxy).
	Front front.Front
	// FrontName, when set, is said on Progress as the front starts.
	FrontName string
	// Amend completes the target as soon as it stands, before anything is made through
	// it: what the caller knows of it that no provider says (that its servers are
	// upstream's, where their audit logs are). Its error fails the Build.
	Amend func(*framework.Target) error
	// ProxyState reads the Mixed Version Proxy's state at every server before the
	// dataplane joins and any load starts (Run.ProxyState), and tells it on Progress.
	ProxyState bool
	// Dataplane is the service dataplane under test, joined to the target; nil for none.
	Dataplane *Dataplane
	// Progress is where Build and Close say what they do beyond what the provider, the
	// front and the dataplane tell; nil says nothing.
	Progress io.Writer
}

// Contexts are endpoints named by hand in a kubeconfig, one admin context each: a
// vendor's proxies, or apiservers reached each by its own context. The cluster behind
// them is not the run's: it makes a namespace of its own there, records what the tests
// make as they make it, and Close removes exactly that.
type Contexts struct {
	Kubeconfig string
	// Admin names one context per endpoint; User, when set, one per endpoint for an
	// identity RBAC grants nothing (the identity tests need it).
	Admin, User []string
	// Owned says the cluster behind them is the caller's to disturb (a test cluster):
	// the tests that load its servers or touch its registrations then run.
	Owned bool
}

// Dataplane is the service dataplane under test: a registered kind (dataplane.Names)
// with what the run chose for it. It runs against the target's newest apiserver, as
// kube-proxy on that apiserver's node would (never newer than its apiserver).
type Dataplane struct {
	Name string
	// Choice is what the run chose; Build fills WatchedVersion with the watched
	// apiserver's.
	Choice dataplane.Choice
	// Dir keeps the dataplane's files and log.
	Dir string
	// SyncBound bounds the dataplane applying a change of a Service.
	SyncBound time.Duration
}

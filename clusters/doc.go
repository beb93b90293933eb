// Package clusters is how a control plane under test comes to exist, seen from above: a
// Spec says what to make, New makes it on a provider named at run time, and a Cluster is
// what every provider's clusters can do (a target for the suites, convergence, members that
// restart at another version, delete). What only some providers' clusters can do is an
// optional capability, found by a type assertion on the Cluster (NodeProxier,
// Disconnector; clusters/front's Host for a front of the harness), and
// declared by the provider beforehand (Capability), so a command refuses what the provider
// lacks before anything is made, with an ErrNotSupported it words as it likes.
//
// Providers register themselves (clusters/providers registers local, kind and containers),
// so this package imports none of them, and adding one touches its own package and one
// line there. The model is kind's pkg/cluster: a small public API over a package per
// backend.
package clusters

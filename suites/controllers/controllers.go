// Package controllers is the profile of the harm the Mixed Version Proxy exists to
// prevent, shown with real controllers: during skew, a kube-controller-manager whose
// garbage collector or namespace controller asks a server that does not serve a resource
// must neither delete objects by mistake nor leave objects behind. The upstream code it is
// about (k8s.io/kubernetes v1.36.3, and the same in v1.35.4): the garbage collector maps
// an owner reference through its discovery and then GETs the owner, and a NotFound marks
// the owner absent, so its dependents are deleted (pkg/controller/garbagecollector
// garbagecollector.go isDangling); the namespace controller deletes what its discovery
// lists in the namespace (pkg/controller/namespace/deletion). The tests run against the
// target's own kube-controller-manager; they make owners of every resource only some
// servers serve, and read what happened through every server.
package controllers

import (
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
)

// Profile is this suite's profile name.
const Profile = "controllers"

// Bounds, from upstream's code (k8s.io/kubernetes v1.35.4 and v1.36.3):
//   - the garbage collector re-reads discovery and resyncs its monitors every 30 s
//     (cmd/kube-controller-manager/app/core.go, garbageCollectorController.Run: const
//     syncPeriod = 30 * time.Second); its informers' handlers have no resync of their own
//     (garbagecollector.go ResourceResyncTime = 0), the shared informers' is 12 h or more
//     (--min-resync-period). So a dependent that survives gcHold has lived through at least
//     one discovery sync of the collector, and its add event was handled long before.
//   - a collector that sees an owner's deletion acts on the watch event at once: gcBound
//     gives it a whole discovery sync on top, for a collector that learned the owner's
//     resource late.
//   - the namespace controller acts on the namespace's update at once and retries what is
//     left with a short backoff (pkg/controller/namespace: its workqueue's rate limiter);
//     namespaceBound is generous against a run of a few seconds.
const (
	gcSyncPeriod   = 30 * time.Second
	gcHold         = gcSyncPeriod + 15*time.Second
	gcBound        = gcSyncPeriod + 10*time.Second
	namespaceBound = 60 * time.Second
	poll           = time.Second
)

// needs are what every test of the profile needs: a skew to act on and a controller manager to act.
var needs = []framework.Feature{framework.FeatureSkew, clusters.ControllerManagers}

// Tests is the profile, as data. IDs are stable: a retired test's ID is never reused. The
// promise rests on peer-aggregated discovery (1.35+): before it, a controller's discovery
// through a server lists only what that server serves.
var Tests = []framework.Test{
	{ID: "CTRL-001", Profile: Profile, Since: "1.35", Features: needs, Holds: gcHold,
		Description: "while the owner of a resource only some servers serve exists, the garbage collector deletes none of its dependents, held past the collector's 30 s discovery sync",
		Makes:       ownersAndDependents, Run: dependentsKept},
	{ID: "CTRL-002", Profile: Profile, Since: "1.35", Features: needs,
		Description: "after such an owner is deleted with propagationPolicy Background, the garbage collector deletes its dependents (read through every server)",
		Makes:       ownersAndDependents, Run: deleted(background)},
	{ID: "CTRL-003", Profile: Profile, Since: "1.35", Features: needs,
		Description: "after such an owner is deleted with propagationPolicy Foreground, its dependents are deleted and then the owner is gone",
		Makes:       ownersAndDependents, Run: deleted(foreground)},
	{ID: "CTRL-004", Profile: Profile, Since: "1.35", Features: needs,
		Description: "after such an owner is deleted with propagationPolicy Orphan, the owner is gone and its dependents stay, their owner reference removed (read through every server)",
		Makes:       ownersAndDependents, Run: deleted(orphan)},
	{ID: "CTRL-010", Profile: Profile, Since: "1.35", Features: append([]framework.Feature{framework.FeatureOwnedCluster}, needs...),
		Description: "a namespace holding objects of resources only a peer serves is deleted within 60 s, never reporting NamespaceDeletionDiscoveryFailure, and none of its objects is left (read through a server that serves each, and in the namespace made again)",
		Makes:       namespaceObjects, Run: namespaceDeleted},
}

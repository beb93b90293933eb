package existing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/skewcheck/skewcheck/framework"
	fwdiscovery "github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// What a run left behind (it was killed, or its clean-up could not reach the cluster) is
// found by its label, framework.RunLabel, on the kinds of object a run labels: its
// namespace (everything namespaced a run makes is in it) and the cluster-scoped objects
// its tests make. A label is a claim, not a proof, so a run is removed only when a person
// names it or it is older than any run lasts (SafeAge).

// SafeAge is the age past which a run has certainly ended: no run outlives its
// unprivileged user's token (tokenLifetime, 2h), and an hour more covers a clean-up still
// under way and a clock of this machine behind the cluster's. A younger run may still be
// going, and removing its objects would fail its tests: it is removed only when named.
// No run may be made to last longer (MaxRunLength), observe's included.
const SafeAge = tokenLifetime + time.Hour

// MaxRunLength is the longest a run on a cluster skewcheck does not own may be made to
// last (observe --for, certify --observe): its unprivileged user's token's lifetime less
// runMargin. A run that outlived its token would end with its tests answered 401, and one
// that passed SafeAge while still going would have its namespace and rights deleted under
// it by a `skewcheck cleanup` without --run, as what a killed run left.
const MaxRunLength = tokenLifetime - runMargin

// runMargin is what a run does besides the time it is made to last, all under the same
// token: its bring-up and the tests certify runs before it observes, then its clean-up.
const runMargin = 30 * time.Minute

// CheckRunLength refuses a run made to last d, as flag says, longer than MaxRunLength.
func CheckRunLength(flag string, d time.Duration) error {
	if d <= MaxRunLength {
		return nil
	}
	return fmt.Errorf("%s %s: a run on a cluster skewcheck does not own lasts at most %s, so that `skewcheck cleanup`, which takes the runs older than %s for what killed runs left, never deletes one still going: give %s %s or less",
		flag, d, MaxRunLength, SafeAge, flag, MaxRunLength)
}

// labelledResources are the kinds of object a run labels with its ID whatever the cluster
// serves, in the order a clean-up deletes them: a binding before the role it grants, and
// the namespace last. The skewed resources its tests label too are the cluster's own
// (ClusterScopedFixtures).
var labelledResources = []schema.GroupVersionResource{
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
	{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"},
	{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
	namespaces,
}

// Run is what one run left in a cluster, found by its label.
type Run struct {
	// ID is the run's label value (Footprint.Run).
	ID string
	// Created is the oldest creationTimestamp of its objects: when the run started, near
	// enough.
	Created time.Time
	// Objects are its labelled objects, in the order Remove deletes them.
	Objects []Made
}

// Age is how long ago the run started.
func (r Run) Age(now time.Time) time.Duration { return now.Sub(r.Created) }

// ClusterScopedFixtures are the cluster-scoped resources disc's cluster serves of which a
// test makes objects (those with a fixture, package fixtures: the skewed resources), each
// one that can be listed and deleted: where a run's tests leave labelled objects besides
// labelledResources, for FindRuns to look in too (a run's namespaced objects go with its
// namespace). A group whose discovery failed is left out, as its kinds cannot be listed.
func ClusterScopedFixtures(disc discovery.DiscoveryInterface) ([]schema.GroupVersionResource, error) {
	_, lists, err := disc.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("reading which resources the cluster serves, for the cluster-scoped objects a run's tests make: %w", err)
	}
	var out []schema.GroupVersionResource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if r.Namespaced || strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "delete") ||
				!fixtures.Has(fwdiscovery.GVR{Group: gv.Group, Version: gv.Version, Resource: r.Name}) {
				continue
			}
			out = append(out, gv.WithResource(r.Name))
		}
	}
	return out, nil
}

// FindRuns lists every run that left labelled objects, oldest first: in labelledResources,
// and in more (ClusterScopedFixtures: without them, the cluster-scoped objects of the
// skewed resources a killed run's tests made were never found, nor removed).
func FindRuns(ctx context.Context, dyn dynamic.Interface, more ...schema.GroupVersionResource) ([]Run, error) {
	byID := map[string]*Run{}
	// The namespace last, as Remove deletes in this order.
	resources := slices.Clone(labelledResources[:len(labelledResources)-1])
	for _, gvr := range more {
		if !slices.Contains(resources, gvr) && gvr != namespaces {
			resources = append(resources, gvr)
		}
	}
	for _, gvr := range append(resources, namespaces) {
		l, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: framework.RunLabel})
		if apierrors.IsNotFound(err) {
			continue // the cluster does not serve this kind: nothing of it to leave
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s labelled %s: %w (finding what runs left needs list on namespaces, customresourcedefinitions, clusterroles, clusterrolebindings, apiservices and the cluster-scoped kinds a run's tests make, which --dry-run lists)",
				gvr.Resource, framework.RunLabel, err)
		}
		for _, o := range l.Items {
			id := o.GetLabels()[framework.RunLabel]
			if id == "" {
				continue // the label without a value, which no run gives (RunID): no run's
			}
			if o.GetNamespace() != "" {
				continue // goes with its namespace
			}
			r := byID[id]
			if r == nil {
				r = &Run{ID: id, Created: o.GetCreationTimestamp().Time}
				byID[id] = r
			}
			if t := o.GetCreationTimestamp().Time; t.Before(r.Created) {
				r.Created = t
			}
			r.Objects = append(r.Objects, Made{GVR: gvr, Namespace: o.GetNamespace(), Name: o.GetName(), UID: o.GetUID()})
		}
	}
	var runs []Run
	for _, r := range byID {
		runs = append(runs, *r)
	}
	slices.SortFunc(runs, func(a, b Run) int { return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID)) })
	return runs, nil
}

// Remove deletes the run's objects, each only while it has the UID it was found with:
// one replaced since by someone else's of the same name is left.
func (r Run) Remove(ctx context.Context, dyn dynamic.Interface) error {
	var errs []error
	for _, m := range r.Objects {
		if err := deleteOwned(ctx, dyn, m); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

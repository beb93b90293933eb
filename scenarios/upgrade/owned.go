package upgrade

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/owners"
)

// dependentsPerOwner is as the controllers profile has it: enough to tell one wrong
// deletion from a policy applied.
const dependentsPerOwner = 2

// Owners are the owners of skewed resources and their dependents a run carried through the
// upgrade (Options.Owners): the garbage collector of a real kube-controller-manager maps
// each owner reference through its discovery and GETs the owner; a 404 from a server that
// does not serve the owner's resource and does not proxy makes it delete the dependents
// while their owner stands (k8s.io/kubernetes pkg/controller/garbagecollector
// garbagecollector.go isDangling). At the end every dependent whose owner is still there
// must be there too.
type Owners struct {
	// ControllerManager is the holder of the controller manager's leader lease at the
	// start; LeadingAtEnd is "" when one still led at the end, else why none did (then
	// nothing shows the collector acted through the upgrade).
	ControllerManager string   `json:"controllerManager"`
	LeadingAtEnd      string   `json:"notLeadingAtEnd,omitempty"`
	Families          []Family `json:"families"`
	// Skipped says why no owner of a skewed resource could be made, when one could not.
	Skipped []string `json:"skipped,omitempty"`
}

// Family is one owner and its dependents, and what the end found of them.
type Family struct {
	GVR   string  `json:"gvr"`
	Owner string  `json:"owner"` // "batch/v1/jobs default/ctrl-owner-1"
	Made  float64 `json:"made"`  // seconds since the start
	// OwnerThrough serves the owner's resource (it was made through it);
	// DependentsThrough did not, then (they were made through it).
	OwnerThrough      string `json:"ownerThrough"`
	DependentsThrough string `json:"dependentsThrough"`
	// OwnerStatus is the owner's read at the end through a server that served its
	// resource then (ReadThrough); 0 when none did, so nothing of the family is judged.
	OwnerStatus int           `json:"ownerStatus"`
	ReadThrough string        `json:"readThrough,omitempty"`
	Dependents  []Dependent   `json:"dependents"`
	refs        owners.Family // what was made, for the end's reads
}

// Dependent is one ConfigMap owned by a family's owner.
type Dependent struct {
	Name string `json:"name"` // namespace/name
	// GoneThrough are the servers that read it as gone (404) at the end: Lost when any
	// did while its owner stood.
	GoneThrough []string `json:"goneThrough,omitempty"`
	Lost        bool     `json:"lost,omitempty"`
}

// carrier makes the run's owners and reads them at the end.
type carrier struct {
	namespace  string
	namespaced bool // only namespaced owners (a cluster skewcheck does not own: its namespace only)
	owned      map[string]bool
	r          *Owners
	progress   func(string, ...any)
}

// carry starts carrying owners through a run on t: a kube-controller-manager must lead
// now (else nothing would act on them), and an owner of every skewed resource is made.
func carry(ctx context.Context, t *framework.Target, namespace string, namespaced bool, at float64, progress func(string, ...any)) (*carrier, error) {
	holder, why := clusters.LeadingControllerManager(t)
	if holder == "" {
		return nil, fmt.Errorf("owners and dependents for the garbage collector need a kube-controller-manager leading: %s", why)
	}
	c := &carrier{namespace: cmp.Or(namespace, metav1.NamespaceDefault), namespaced: namespaced, owned: map[string]bool{},
		r: &Owners{ControllerManager: holder}, progress: progress}
	progress("owners: kube-controller-manager %s leads\n", holder)
	c.add(ctx, t, at)
	return c, nil
}

// add makes an owner of every resource skewed now that has none yet, through a server
// that serves it, and its dependents through one that does not: at the start, and after
// each step (an upgrade brings resources only the upgraded servers serve).
func (c *carrier) add(ctx context.Context, t *framework.Target, at float64) {
	if c == nil {
		return
	}
	for _, route := range owners.Skewed(t, c.namespaced) {
		key := route.GVR.Key()
		if c.owned[key] {
			continue
		}
		f, err := owners.Make(ctx, route, c.namespace, dependentsPerOwner)
		if err != nil {
			// Not the proxy's violation: the family could not be made, so it is not carried.
			c.progress("warning: owners: %v\n", err)
			c.remove(ctx, t, f)
			continue
		}
		c.owned[key] = true
		fam := Family{GVR: key, Owner: f.Owner.String(), Made: at, OwnerThrough: route.Peer.Name, DependentsThrough: route.Entry.Name, refs: f}
		for _, d := range f.Dependents {
			fam.Dependents = append(fam.Dependents, Dependent{Name: d.Namespace + "/" + d.Name})
		}
		c.r.Families = append(c.r.Families, fam)
		c.progress("owners: %s made through %s, %d dependents through %s\n", fam.Owner, route.Peer.Name, len(f.Dependents), route.Entry.Name)
	}
}

// end reads every family through the servers as they are now, and removes what was made
// (the run leaves nothing, whatever the collector did): the owner through a server that
// serves its resource, each dependent through every server.
func (c *carrier) end(ctx context.Context, t *framework.Target) *Owners {
	if c == nil {
		return nil
	}
	if holder, why := clusters.LeadingControllerManager(t); holder == "" {
		c.r.LeadingAtEnd = why
	}
	if len(c.r.Families) == 0 {
		c.r.Skipped = append(c.r.Skipped, framework.NoRoutes(t, owners.Verbs...))
	}
	for i := range c.r.Families {
		f := &c.r.Families[i]
		if reader := serving(t, f.GVR); reader != nil {
			f.ReadThrough = reader.Name
			f.OwnerStatus, _ = owners.Get(ctx, reader, f.refs.Owner)
		}
		for j, d := range f.refs.Dependents {
			for _, e := range t.Endpoints {
				if status, _ := owners.Get(ctx, e, d); status == 404 {
					f.Dependents[j].GoneThrough = append(f.Dependents[j].GoneThrough, e.Name)
				}
			}
			f.Dependents[j].Lost = f.OwnerStatus == 200 && len(f.Dependents[j].GoneThrough) > 0
		}
		c.remove(ctx, t, f.refs)
	}
	return c.r
}

// remove deletes what was made of a family, dependents first, each through a server that
// serves it; what cannot be removed is said, not left silently.
func (c *carrier) remove(ctx context.Context, t *framework.Target, f owners.Family) {
	refs := append(slices.Clone(f.Dependents), f.Owner)
	for _, r := range refs {
		if r.UID == "" {
			continue
		}
		e := serving(t, r.GVR.Key())
		if e == nil {
			continue // no server serves it now: the cluster keeps it until one does
		}
		if err := owners.Remove(ctx, e, r); err != nil {
			c.progress("warning: owners: %v\n", err)
		}
	}
}

// serving is the first endpoint of t whose own discovery serves the GVR, nil when none does.
func serving(t *framework.Target, key string) *framework.Endpoint {
	for _, e := range t.Endpoints {
		if e.Served.Has(key) {
			return e
		}
	}
	return nil
}

// judgeOwners counts the dependents and violates each lost one, naming it, its owner and
// the owner's resource; a run that asked for owners and carried none, or whose controller
// manager no longer led at the end, shows nothing and is violated too.
func (r *Result) judgeOwners() {
	r.Counts.Dependents, r.Counts.DependentsLost = 0, 0
	o := r.Owners
	if o == nil {
		return
	}
	if len(o.Families) == 0 {
		r.Violations = append(r.Violations, "owners: no owner was carried through the upgrade, so nothing shows the garbage collector kept their dependents ("+fmt.Sprint(o.Skipped)+")")
	}
	if o.LeadingAtEnd != "" {
		r.Violations = append(r.Violations, "owners: no kube-controller-manager led at the end ("+o.LeadingAtEnd+"), so nothing shows its garbage collector acted through the upgrade")
	}
	for _, f := range o.Families {
		if f.OwnerStatus == 404 {
			r.Violations = append(r.Violations, fmt.Sprintf("owners: the owner %s, made through %s at %.1fs, is gone at the end (read through %s): nothing of the run deleted it",
				f.Owner, f.OwnerThrough, f.Made, f.ReadThrough))
		}
		for _, d := range f.Dependents {
			r.Counts.Dependents++
			if d.Lost {
				r.Counts.DependentsLost++
				r.Violations = append(r.Violations, fmt.Sprintf("dependent lost: configmap %s of the owner %s (%s), which still stands (read through %s), is gone through %v at the end: the garbage collector took its owner for absent",
					d.Name, f.Owner, f.GVR, f.ReadThrough, d.GoneThrough))
			}
		}
	}
}

// ownersText sums up the carried owners for the table, one line per family.
func (r *Result) ownersText() []string {
	o := r.Owners
	if o == nil {
		return nil
	}
	out := []string{fmt.Sprintf("owners carried through (kube-controller-manager %s): %d, with %d dependents, %d lost", o.ControllerManager, len(o.Families), r.Counts.Dependents, r.Counts.DependentsLost)}
	for _, f := range o.Families {
		lost := 0
		for _, d := range f.Dependents {
			if d.Lost {
				lost++
			}
		}
		status := "no server serves its resource at the end: not judged"
		if f.OwnerStatus != 0 {
			status = fmt.Sprintf("%d through %s at the end", f.OwnerStatus, f.ReadThrough)
		}
		out = append(out, fmt.Sprintf("  %s, made through %s at %.1fs: %s; %d dependents made through %s, %d lost", f.Owner, f.OwnerThrough, f.Made, status, len(f.Dependents), f.DependentsThrough, lost))
	}
	return out
}

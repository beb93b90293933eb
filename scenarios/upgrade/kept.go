package upgrade

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// keptBodies are the objects a run keeps, by GVR: each is written once by a server just
// restarted at a hop's version and read back through every server at the end of every
// later hop. volumeattributesclasses changed storage version between 1.35 and 1.36 (1.35
// stores v1beta1, 1.36 v1: k8s.io/kubernetes pkg/kubeapiserver/default_storage_factory_builder.go),
// so after a downgrade an older server must decode what a newer one stored.
// mutatingadmissionpolicies are served by 1.36 and not by 1.35 (stored as v1beta1, which a
// 1.35 server knows but does not serve by default): after a downgrade no server serves
// them, and they must come back, all of them, once a server serves them again. A GVR the
// servers of a run do not serve is not written. The cluster goes at the end, and the kept
// objects with it.
var keptBodies = map[string]string{
	"storage.k8s.io/v1/volumeattributesclasses": `{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttributesClass",` +
		`"metadata":{"name":%q},"driverName":"skewcheck.io/none","parameters":{"written-by":%q}}`,
	"admissionregistration.k8s.io/v1/mutatingadmissionpolicies": `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingAdmissionPolicy",` +
		`"metadata":{"name":%q,"annotations":{"skewcheck.io/written-by":%q}},"spec":{"failurePolicy":"Ignore","reinvocationPolicy":"Never",` +
		`"matchConstraints":{"resourceRules":[{"apiGroups":["skewcheck.io"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["nothing"]}]},` +
		`"mutations":[{"patchType":"JSONPatch","jsonPatch":{"expression":"[JSONPatch{op: \"add\", path: \"/metadata/labels/kept\", value: \"yes\"}]"}}]}}`,
}

// Kept is one object the run wrote to read back after every later hop.
type Kept struct {
	GVR     string     `json:"gvr"`
	Name    string     `json:"name"`
	Hop     int        `json:"hop"` // written after a step of this hop; 0: before the first
	Server  string     `json:"server"`
	Version string     `json:"version"` // of the server that wrote it
	Reads   []KeptRead `json:"reads,omitempty"`
}

// KeptRead is one read of a kept object, at the end of a hop.
type KeptRead struct {
	Hop     int    `json:"hop"`
	Server  string `json:"server"`
	Version string `json:"version"`
	Status  int    `json:"status"`
	// Unserved: no server served the GVR then, so 404 is all there can be.
	Unserved bool `json:"unserved,omitempty"`
}

// keep writes one object of every kept GVR that e serves, through e.
func keep(ctx context.Context, r *Result, e *framework.Endpoint, hop int, progress func(string, ...any)) {
	for _, key := range slices.Sorted(maps.Keys(keptBodies)) {
		if !e.Served.Has(key) {
			continue
		}
		k := Kept{GVR: key, Name: fmt.Sprintf("upgrade-%d-%d-%s", r.Seed, hop, e.Name), Hop: hop, Server: e.Name, Version: e.Version}
		body := fmt.Sprintf(keptBodies[key], k.Name, e.Name+" at "+e.Version)
		w := do(ctx, e, framework.Request{Method: "POST", Path: objectPath(key, ""), Body: []byte(body)})
		if w.Status != 201 {
			// Not a violation of the proxy: the object could not be made, so it is not kept.
			progress("warning: could not keep a %s through %s (%s): %d %s\n", key, e.Name, e.Version, w.Status, strings.TrimSpace(string(w.Body)))
			continue
		}
		r.Kept = append(r.Kept, k)
	}
}

// readKept reads every kept object through every server, at the end of a hop. Each read must
// be 200, unless no server serves the GVR any more: then 404.
func readKept(ctx context.Context, r *Result, t *framework.Target, hop int) {
	served := listable(t)
	for i := range r.Kept {
		k := &r.Kept[i]
		for _, e := range t.Endpoints {
			got := do(ctx, e, framework.Request{Path: objectPath(k.GVR, k.Name)})
			read := KeptRead{Hop: hop, Server: e.Name, Version: e.Version, Status: got.Status, Unserved: !served.Has(k.GVR)}
			k.Reads = append(k.Reads, read)
			if read.Status == 200 || read.Unserved && read.Status == 404 {
				continue
			}
			r.violate(r.Hops[hop-1].End, fmt.Sprintf("%s %s, written through %s at %s, read through %s at %s after hop %d: %d, want 200",
				k.GVR, k.Name, k.Server, k.Version, e.Name, e.Version, hop, read.Status))
		}
	}
}

// objectPath is the path of a cluster-scoped object of the GVR (its collection for "").
func objectPath(key, name string) string {
	group, version, resource, _ := discovery.ParseKey(key)
	p := discovery.GVR{Group: group, Version: version, Resource: resource}.Path()
	if name != "" {
		p += "/" + name
	}
	return p
}

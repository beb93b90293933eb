package sidecar

import (
	"fmt"
	"os"
	"strings"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/front"
)

// Leases says how the sidecars register with one another when they do it with a Lease per
// sidecar, as skewcheck's reference does: the races profile then runs through those
// leases (front.LeaseRegistrar). Without it the races skip, missing Registration.
type Leases struct {
	Namespace string
	// Name is each sidecar's lease, with the sidecar's environment expanded in it
	// ("skewcheck-peerproxy-$SKEWCHECK_ID").
	Name string
	// Labels are on every sidecar's lease.
	Labels map[string]string
	// URLAnnotation names the URL peers dial.
	URLAnnotation string
}

// Check says what a declaration lacks.
func (l *Leases) Check() error {
	if l.Name == "" || len(l.Labels) == 0 || l.URLAnnotation == "" {
		return fmt.Errorf("a sidecar's leases need a name, labels and the annotation with the URL peers dial; got name %q, labels %v, annotation %q", l.Name, l.Labels, l.URLAnnotation)
	}
	return nil
}

// registrar is the declaration as the races' registrar, names read from each sidecar's
// environment (endpoint name -> env).
func (l *Leases) registrar(site *clusters.FrontSite, envs map[string][]string) *front.LeaseRegistrar {
	names := map[string]string{}
	for endpoint, env := range envs {
		names[endpoint] = os.Expand(l.Name, func(k string) string {
			for _, kv := range env {
				if v, ok := strings.CutPrefix(kv, k+"="); ok {
					return v
				}
			}
			return ""
		})
	}
	ns := l.Namespace
	if ns == "" {
		ns = "kube-system"
	}
	return &front.LeaseRegistrar{Namespace: ns, Labels: l.Labels, URLAnnotation: l.URLAnnotation, Names: names, Client: front.RunningServer(site)}
}

package front

import (
	"fmt"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/internal/named"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
)

// ReferenceChoice is what a run chose for a reference front beyond its name, in the
// library's words (the CLI fills it from its flags).
type ReferenceChoice struct {
	// PeerTimeout bounds reaching a peer: the time to 503 for a frozen one.
	PeerTimeout time.Duration
	// Variant is one of the reference's deliberately wrong variants (a mutant); "" is the
	// reference as shipped.
	Variant string
}

// Reference is a reference implementation as a front, as it registers: a run selects it
// by Name, and what a front needs of the cluster under it is said here, not by whoever
// selects it.
type Reference struct {
	Name, Description string
	// ReplacesPeerProxy: it does the apiservers' own mixed version proxy's job, which is
	// then off under it, so what is measured is the reference's and not upstream's.
	ReplacesPeerProxy bool
	// Variants are its deliberately wrong variants, the mutants of `skewcheck mutation`.
	Variants func() []string
	// Make is the front for a choice; an unknown variant is an error naming the known.
	Make func(ReferenceChoice) (Front, error)
	// Needs are what it asks of a provider beyond a cluster; a reference registered
	// without them needs clusters.Fronts, a site to listen at before the apiservers.
	Needs []clusters.Capability
}

// references are the registered reference fronts, in registration order.
var references = named.New("reference", func(r Reference) string { return r.Name })

// RegisterReference makes a reference front known by its name; a second registration of
// a name panics. A reference without Variants has none.
func RegisterReference(r Reference) {
	if r.Variants == nil {
		r.Variants = func() []string { return nil }
	}
	if r.Needs == nil {
		r.Needs = []clusters.Capability{clusters.Fronts}
	}
	references.Register(r)
}

// References are the registered reference fronts, in registration order.
func References() []Reference { return references.All() }

// ReferenceNames are their names.
func ReferenceNames() []string { return references.Names() }

// LookupReference is the reference front registered as name.
func LookupReference(name string) (Reference, error) {
	if r, ok := references.Lookup(name); ok {
		return r, nil
	}
	return Reference{}, fmt.Errorf("unknown reference %q: the reference implementations are %s", name, strings.Join(ReferenceNames(), ", "))
}

// The reference peer proxy, in front of every apiserver with their own proxy off.
func init() {
	RegisterReference(Reference{Name: "peerproxy", Description: "skewcheck's reference peer proxy in front of every apiserver (their own proxy off)",
		ReplacesPeerProxy: true,
		Variants: func() []string {
			var out []string
			for _, f := range peerproxy.Flaws() {
				out = append(out, string(f))
			}
			return out
		},
		Make: func(c ReferenceChoice) (Front, error) {
			flaw, err := peerproxy.ParseFlaw(c.Variant)
			if err != nil {
				return nil, err
			}
			return PeerProxy{PeerTimeout: c.PeerTimeout, Flaw: flaw}, nil
		}})
}

package gateway

import (
	"fmt"
	"strings"

	"github.com/skewcheck/skewcheck/internal/named"
)

// Reference is a reference API gateway as it registers: a run selects it by Name, and it
// runs exactly as a vendor's gateway does, as the Config its Make returns (a command and an
// apply command), so the profile judges it through the same door.
type Reference struct {
	Name, Description string
	// Variants are its deliberately wrong variants (the mutants of `skewcheck mutation`).
	Variants func() []string
	// Make is the gateway for the variants asked for (none: as shipped), run by the
	// executable exe; an unknown variant is an error naming the known.
	Make func(exe string, variants []string) (Config, error)
}

// references are the registered reference gateways, in registration order.
var references = named.New("reference gateway", func(r Reference) string { return r.Name })

// RegisterReference makes a reference gateway known by its name; a second registration of
// a name panics. The one skewcheck ships registers beside the command that runs it.
// A reference without Variants has none.
func RegisterReference(r Reference) {
	if r.Variants == nil {
		r.Variants = func() []string { return nil }
	}
	references.Register(r)
}

// References are the registered reference gateways, in registration order.
func References() []Reference { return references.All() }

// ReferenceNames are the registered reference gateways' names.
func ReferenceNames() []string { return references.Names() }

// LookupReference is the reference gateway registered as name.
func LookupReference(name string) (Reference, error) {
	if r, ok := references.Lookup(name); ok {
		return r, nil
	}
	return Reference{}, fmt.Errorf("unknown reference gateway %q: the reference gateways are %s", name, strings.Join(ReferenceNames(), ", "))
}

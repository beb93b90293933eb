package dataplane

import (
	"fmt"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/internal/named"
)

// Choice is what a user chose for the dataplane beyond its name, in the library's words:
// the CLI fills it from its flags. A kind reads what it needs and ignores the rest.
type Choice struct {
	// Version is the release of a dataplane built from Kubernetes (kube-proxy); ""
	// means the version of the apiserver it watches (WatchedVersion).
	Version, WatchedVersion string
	// Command is the shell command of a dataplane run as a command, Image its image in
	// the local engine; Label its name in reports.
	Command, Image, Label string
	Binaries              binaries.Options
}

// Kind is a dataplane as it registers: its name (what a run selects it by), a few words,
// and how its Spec is made of a Choice. Each dataplane registers itself beside its Spec,
// so adding one touches its own file and nothing that lists them.
type Kind struct {
	Name, Description string
	Make              func(Choice) (Spec, error)
	// ChosenBy is the Choice field ("Image") that selects this kind when a run names
	// none; "" for a kind that is only chosen by name.
	ChosenBy string
}

// Default is the dataplane a run that needs one and names none gets: skewcheck's
// reference, which needs nothing but nftables (kube-proxy would need a binary built for
// the version first).
const Default = "reference"

// ChosenBy is the name of the kind that field selects when no name is given ("" when
// none does): a run that gives an image and no name runs the image.
func ChosenBy(field string) string {
	for _, k := range kinds.All() {
		if k.ChosenBy == field {
			return k.Name
		}
	}
	return ""
}

// ErrNeeds is a Choice that lacks what the kind needs: Field names the Choice field
// ("Command", "Image"), which the caller words as it likes (the CLI as its flag).
type ErrNeeds struct {
	Dataplane, Field, Why string
}

func (e ErrNeeds) Error() string {
	return fmt.Sprintf("dataplane %s needs its %s: %s", e.Dataplane, strings.ToLower(e.Field), e.Why)
}

// ErrUnknown is a name no dataplane registered.
type ErrUnknown struct {
	Name  string
	Known []string
}

func (e ErrUnknown) Error() string {
	return fmt.Sprintf("unknown dataplane %q: the dataplanes are %s", e.Name, strings.Join(e.Known, ", "))
}

// kinds are the registered dataplanes, in the order help texts list them.
var kinds = named.New("dataplane", func(k Kind) string { return k.Name })

// Register makes a dataplane known by its name; a second registration of a name panics.
func Register(k Kind) { kinds.Register(k) }

// Names are the registered dataplanes' names, in registration order.
func Names() []string { return kinds.Names() }

// Make is the Spec of the dataplane registered as name, for c.
func Make(name string, c Choice) (Spec, error) {
	k, ok := kinds.Lookup(name)
	if !ok {
		return nil, ErrUnknown{Name: name, Known: Names()}
	}
	return k.Make(c)
}

// The dataplanes skewcheck ships, in the order help texts list them: kube-proxy in each
// mode, the reference and its flawed variants, then the two ways a vendor's plugs in.
func init() {
	for _, mode := range []string{"nftables", "iptables", "ipvs"} {
		Register(Kind{Name: "kube-proxy-" + mode, Description: "real kube-proxy in " + mode + " mode, of the watched apiserver's version unless one is chosen",
			Make: func(c Choice) (Spec, error) {
				v, _, _ := strings.Cut(c.Version, "+")
				if v == "" {
					v, _, _ = strings.Cut(c.WatchedVersion, "+")
				}
				return KubeProxy{Mode: mode, Version: v, Binaries: c.Binaries}, nil
			}})
	}
	Register(Kind{Name: Default, Description: "skewcheck's reference dataplane (reference/ipmode)", Make: func(Choice) (Spec, error) { return Reference{}, nil }})
	for _, r := range ReferenceFlawed() {
		Register(Kind{Name: r.Name(), Description: "the reference, deliberately wrong (a mutant of the ipmode profile)", Make: func(Choice) (Spec, error) { return r, nil }})
	}
	Register(Kind{Name: "exec", Description: "your dataplane, as a shell command run on the node", Make: func(c Choice) (Spec, error) {
		if c.Command == "" {
			return nil, ErrNeeds{Dataplane: "exec", Field: "Command", Why: "the shell command that runs it, e.g. 'my-dataplane --kubeconfig \"$SKEWCHECK_KUBECONFIG\" --node \"$SKEWCHECK_NODE_NAME\"'"}
		}
		return Command{Label: c.Label, Shell: c.Command}, nil
	}})
	Register(Kind{Name: "image", Description: "your dataplane, as an image in the local Docker engine", ChosenBy: "Image", Make: func(c Choice) (Spec, error) {
		if c.Image == "" {
			return nil, ErrNeeds{Dataplane: "image", Field: "Image", Why: "the image of your dataplane in the local Docker engine"}
		}
		return Image{Label: c.Label, Ref: c.Image}, nil
	}})
}

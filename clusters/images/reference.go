package images

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// References are skewcheck's reference implementations that can be built into an image,
// each with the command its entrypoint runs. Each takes every flag its contract covers from
// the SKEWCHECK_* variable of that contract, since a scratch image has no shell to expand
// them into a command line.
var references = map[string]Image{
	// The mixed version proxy, for conformance --sidecar-image.
	"peerproxy": {Cmd: []string{"reference", "peerproxy"}},
	// The service dataplane, for conformance --dataplane-image. It programs nftables with
	// the nft command (knftables), which is copied in from this machine with its libraries.
	"dataplane": {Cmd: []string{"reference", "ipmode"}, HostExecutables: []string{"nft"}},
	// The API gateway, for conformance --gateway-image.
	"gateway": {Cmd: []string{"reference", "gateway"}},
}

// ReferenceNames are the components Reference builds.
func ReferenceNames() []string {
	var names []string
	for n := range references {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Reference builds the image of one reference component, tagged ref, from binary: a static
// skewcheck executable.
func Reference(ctx context.Context, rt *containers.Runtime, component, binary, ref string, progress io.Writer) error {
	img, ok := references[component]
	if !ok {
		return fmt.Errorf("no reference component %q: the components are %s", component, strings.Join(ReferenceNames(), ", "))
	}
	img.Ref, img.Entrypoint = ref, binary
	return BuildImage(ctx, rt, img, progress)
}

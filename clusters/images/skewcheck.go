package images

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// busybox is this machine's static busybox (Debian's busybox-static), which skewcheck's
// image carries as its sh and cat: hydrophone follows a run's progress by exec'ing
// `sh -c "cat /tmp/results/e2e.log"` in the conformance container every few seconds
// (pkg/conformance/client/logs.go, watchStatus), and on a FROM scratch image that exec
// fails and hydrophone's wait for the run never ends.
const busybox = "/bin/busybox"

// skewcheckImage is skewcheck's own image: binary as its entrypoint, running `skewcheck
// in-cluster`, and busybox at /bin, answering as sh and cat to the links that name it.
func skewcheckImage(binary, ref string) Image {
	return Image{Ref: ref, Entrypoint: binary, Cmd: []string{"in-cluster"}, HostExecutables: []string{busybox},
		Links: map[string]string{"/bin/sh": "busybox", "/bin/cat": "busybox"}}
}

// Skewcheck builds skewcheck's own image, tagged ref, from binary: a static skewcheck
// executable, best built with the tag incluster.
func Skewcheck(ctx context.Context, rt *containers.Runtime, binary, ref string, progress io.Writer) error {
	if err := requireStaticBusybox(); err != nil {
		return err
	}
	return BuildImage(ctx, rt, skewcheckImage(binary, ref), progress)
}

// requireStaticBusybox fails, saying how to install it, when this machine has no static
// busybox to copy.
func requireStaticBusybox() error {
	const install = "install Debian's busybox-static (apt-get install busybox-static; make deps does)"
	if _, err := os.Stat(busybox); err != nil {
		return fmt.Errorf("skewcheck's image carries a static busybox as its sh and cat (hydrophone execs `sh -c cat` in it), and %s is not here (%v): %s", busybox, err, install)
	}
	err := requireStatic(busybox)
	if dynamic := (ErrDynamic{}); errors.As(err, &dynamic) {
		return fmt.Errorf("%s is dynamically linked (Debian's busybox package), and skewcheck's image has no C library: %s, which replaces it", busybox, install)
	}
	return err
}

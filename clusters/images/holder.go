package images

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// Holder returns a local image whose only process sleeps until killed: a container of it
// holds a network namespace that other containers join (Docker's network mode
// container:<name>), as Kubernetes' pause container holds a pod's. Nothing can be pulled,
// so it is built FROM scratch from this machine's own sleep and the libraries it loads; the
// tag names the sleep binary's digest, so it is built once per machine.
func Holder(ctx context.Context, rt *containers.Runtime, progress io.Writer) (string, error) {
	path, err := exec.LookPath("sleep")
	if err != nil {
		return "", fmt.Errorf("the network holder image is made of this machine's sleep command, and there is none: %w", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	ref := fmt.Sprintf("skewcheck/netns-holder:%x", sha256.Sum256(b))[:len("skewcheck/netns-holder:")+12]
	if rt.RequireImage(ctx, ref) == nil {
		return ref, nil
	}
	return ref, BuildImage(ctx, rt, Image{Ref: ref, HostExecutables: []string{path}, Cmd: []string{"infinity"}}, progress)
}

package kind

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"

	"sigs.k8s.io/kind/pkg/cluster/constants"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// importImage imports a `docker save` archive from stdin into the node's containerd, for
// the snapshotter the node's entrypoint chose (overlayfs, or native where overlayfs does
// not work: the node image's skewcheck-preload reads it the same way).
const importImage = `ctr --namespace k8s.io images import --all-platforms --digests ` +
	`--snapshotter "$(awk -F'"' '/snapshotter =/ {print $2}' /etc/containerd/config.toml)" -`

// LoadImage copies ref from the local engine into every node of the named cluster's
// containerd, as `kind load docker-image` does: no registry is involved, so a pod can run
// an image built on this machine (pull policy IfNotPresent). It execs without
// --privileged, which every host allows (kind's own loader asks for it, which the docker
// shim's hosts refuse).
func LoadImage(ctx context.Context, rt *containers.Runtime, name, ref string) error {
	var archive bytes.Buffer
	if err := rt.SaveImage(ctx, ref, &archive); err != nil {
		return err
	}
	nodes, err := provider().ListNodes(KindName(name))
	if err != nil {
		return fmt.Errorf("listing the nodes of kind cluster %s: %w", KindName(name), err)
	}
	if len(nodes) == 0 {
		return fmt.Errorf("kind cluster %s has no nodes: is it running?", KindName(name))
	}
	for _, n := range nodes {
		if role, err := n.Role(); err == nil && role == constants.ExternalLoadBalancerNodeRoleValue {
			continue // haproxy, no containerd
		}
		cmd := exec.CommandContext(ctx, "docker", "exec", "-i", n.String(), "sh", "-c", importImage)
		cmd.Stdin = bytes.NewReader(archive.Bytes())
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("loading %s into node %s: %w: %s", ref, n.String(), err, out)
		}
	}
	return nil
}

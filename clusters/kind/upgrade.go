package kind

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/images/nodeimage"
)

// Upgrade moves server's kube-apiserver to version the way kubeadm upgrades a control-plane
// node: the new image goes into the node's containerd (from version's node image), the
// static pod's manifest names it, and the kubelet replaces the pod (SIGTERM to the old
// server, then the new one). etcd, the controller-manager, the scheduler and the kubelet
// stay at their version, as between kubeadm's steps. It returns once the server answers
// /version with the new version. The image is loaded first (PrepareUpgrade) unless it
// already was.
func (c *Cluster) Upgrade(ctx context.Context, server, version string, bin binaries.Options, progress io.Writer) error {
	p, ok := c.prepared[server]
	if !ok || p.requested != version {
		var err error
		if p, err = c.PrepareUpgrade(ctx, server, version, bin, progress); err != nil {
			return err
		}
	}
	s := &c.Servers[c.serverIndex(server)]
	edit := fmt.Sprintf(`sed -i 's#^\( *image: \).*kube-apiserver:.*#\1%s#' %s`, p.image, apiserverManifest)
	if _, err := c.control[server].sh(edit); err != nil {
		return err
	}
	if err := c.waitVersion(ctx, s.Name, p.version, 3*time.Minute); err != nil {
		return fmt.Errorf("after putting %s in node %s's manifest: %w", p.image, s.Node, err)
	}
	s.Version = p.version
	return nil
}

// Prepared is a server's next apiserver image, loaded into its node but not yet running:
// for the version asked for, the image and the version it carries.
type Prepared struct{ requested, image, version string }

// PrepareUpgrade loads version's kube-apiserver image into server's node (from version's
// node image, built offline if need be), leaving the server running as it is: what
// kubeadm's image pre-pull does before an upgrade.
func (c *Cluster) PrepareUpgrade(ctx context.Context, server, version string, bin binaries.Options, progress io.Writer) (Prepared, error) {
	i := c.serverIndex(server)
	if i < 0 {
		return Prepared{}, fmt.Errorf("cluster %s has no server %s", c.Name, server)
	}
	s := &c.Servers[i]
	res, err := nodeimage.Build(ctx, nodeimage.Options{Version: version, Binaries: bin, Progress: progress})
	if err != nil {
		return Prepared{}, err
	}
	eng, err := connect(ctx)
	if err != nil {
		return Prepared{}, err
	}
	defer eng.close()
	n, err := nodeFromImage(ctx, eng, res.Ref)
	if err != nil {
		return Prepared{}, err
	}
	p := Prepared{requested: version, image: n.images.APIServer, version: n.version}
	if c.prepared[server] == p {
		return p, nil
	}
	// Copy the image archive out of the new node image into the node, and load it.
	archive := "/kind/images/kube-apiserver-" + n.version + ".tar"
	var errb bytes.Buffer
	out := exec.CommandContext(ctx, "docker", "run", "--rm", "--entrypoint", "cat", res.Ref, "/kind/images/kube-apiserver.tar")
	in := exec.CommandContext(ctx, "docker", "exec", "-i", s.Node, "sh", "-c", "cat > "+archive+" && /usr/local/bin/skewcheck-preload")
	pipe, err := out.StdoutPipe()
	if err != nil {
		return Prepared{}, err
	}
	in.Stdin, out.Stderr, in.Stdout, in.Stderr = pipe, &errb, &errb, &errb
	if err := out.Start(); err != nil {
		return Prepared{}, err
	}
	inErr := in.Run()
	outErr := out.Wait()
	if inErr != nil || outErr != nil {
		return Prepared{}, fmt.Errorf("loading %s into node %s: %v %v: %s", n.images.APIServer, s.Node, outErr, inErr, strings.TrimSpace(errb.String()))
	}
	if err := c.attachNodes(); err != nil {
		return Prepared{}, err
	}
	if c.prepared == nil {
		c.prepared = map[string]Prepared{}
	}
	c.prepared[server] = p
	return p, nil
}

func (c *Cluster) serverIndex(name string) int {
	for i, s := range c.Servers {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// waitVersion waits until server answers /version with version.
func (c *Cluster) waitVersion(ctx context.Context, server, version string, timeout time.Duration) error {
	cfg, err := c.RestConfig(server, Admin)
	if err != nil {
		return err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	hc.Timeout = 5 * time.Second
	deadline := time.Now().Add(timeout)
	last := "no answer"
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if resp, err := hc.Get(c.Servers[c.serverIndex(server)].URL + "/version"); err == nil {
			var v struct{ GitVersion string }
			json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
			if v.GitVersion == version {
				return nil
			}
			last = v.GitVersion
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("%s still answers %s, not %s, after %v", server, last, version, timeout)
}

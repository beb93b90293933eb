package kind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"sigs.k8s.io/kind/pkg/cluster"
)

// remove deletes the kind cluster (its containers with their volumes), its network and
// kind's admin kubeconfig.
func remove(p *cluster.Provider, eng *engine, name, kubeconfig string) error {
	var errs []error
	if err := p.Delete(KindName(name), kubeconfig); err != nil {
		errs = append(errs, fmt.Errorf("kind delete cluster %s: %w", KindName(name), err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := eng.removeNetwork(ctx, networkName(name)); err != nil {
		errs = append(errs, err)
	}
	if err := os.Remove(kubeconfig); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// nodeLogs is the tail of every node's kubelet and containerd journal: where the cause is
// when kubeadm waits in vain for a static pod.
func nodeLogs(p *cluster.Provider, name string) string {
	nodes, err := p.ListNodes(KindName(name))
	if err != nil || len(nodes) == 0 {
		return ""
	}
	var b strings.Builder
	for _, n := range nodes {
		var out bytes.Buffer
		cmd := n.Command("journalctl", "--no-pager", "-n", "15", "-u", "kubelet", "-u", "containerd", "-u", "skewcheck-preload")
		cmd.SetStdout(&out)
		cmd.SetStderr(&out)
		if cmd.Run() != nil && out.Len() == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n--- %s: last lines of the kubelet, containerd and preload journal ---\n%s", n.String(), strings.TrimRight(out.String(), "\n"))
	}
	return b.String()
}
